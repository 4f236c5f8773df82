//! A lost X server ends a windowed run like any other failure (feature
//! `window`, X11 only): a laige error, the ordered shutdown, exit code 4.
//!
//! Xlib's default reaction to a broken connection (the server died, was
//! killed, the network went away) is to print one line and call `exit(1)`
//! from inside whatever Xlib call noticed it: no shutdown, no report, a
//! recording without its end record. Xlib lets a program replace two
//! functions, both looked up in the already loaded `libX11.so.6` (winit
//! loads it; nothing is linked at build time):
//!
//! - `XSetIOErrorHandler` (process-wide): [`on_io_error`] records that the
//!   display is lost and returns;
//! - `XSetIOErrorExitHandler` (per display, libX11 ≥ 1.7): [`on_io_exit`]
//!   replaces the `exit(1)` that follows and **returns**. Xlib has then
//!   marked the display broken: every later call on it returns at once
//!   without touching the connection, so winit's event loop keeps turning,
//!   the windowed run sees [`display_lost`] at its next wake-up and ends
//!   through the ordered shutdown with `engine/display_lost`.
//!
//! The render thread may then be inside a GL call on the dead display
//! that never returns (Mesa's GLX teardown waits for the server), so the
//! shutdown waits at most [`LOST_STOP_TIMEOUT`] for it (instead of
//! `render_stop_timeout`) and then ends without joining it: the exit
//! follows the loss within a fraction of a second.
//!
//! When the render thread's Xlib call is the one that meets the broken
//! connection, libX11 can leave the event loop's thread waiting forever
//! inside `XPending` for a reply that thread never hands over (seen about
//! one run in four here). The run's state is then out of reach, so a
//! watchdog armed by the first handler call ends the process if the event
//! loop has not begun the ordered shutdown within [`WATCHDOG`]: the laige
//! error line on stderr and `_exit(4)`, as below; the recording reads as
//! torn, and the replay command verifies its valid prefix.
//!
//! With a libX11 older than 1.7 (no exit handler) the I/O error handler
//! must not return — Xlib would call `exit(1)` — and the run's state is
//! on the main thread's stack inside the Xlib call, out of reach. Then
//! [`on_io_error`] writes the laige error line to stderr and ends the
//! process with `_exit(4)` (the render-failure code): a recording keeps
//! every record written so far (each is flushed as it is written), so it
//! reads as torn, which the replay command verifies as its valid prefix.

#![expect(
    unsafe_code,
    reason = "Xlib's error hooks are C function pointers looked up with dlsym"
)]

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use laige_core::{Error, ErrorCode};

use crate::events;

/// How long the shutdown after a lost display waits for the render
/// thread (module docs).
pub(crate) const LOST_STOP_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

/// How long after the loss the event loop may take to begin the ordered
/// shutdown before the watchdog ends the process (module docs).
const WATCHDOG: std::time::Duration = std::time::Duration::from_millis(750);

/// Set by the event loop as it begins the shutdown of a lost display:
/// the watchdog stands down.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);
/// Whether the watchdog thread was started.
static WATCHDOG_ARMED: AtomicBool = AtomicBool::new(false);

/// Set by the I/O error handler (any thread); read by the windowed run.
static LOST: AtomicBool = AtomicBool::new(false);
/// Whether this libX11 has `XSetIOErrorExitHandler` (the I/O error
/// handler may return).
static RETURNABLE: AtomicBool = AtomicBool::new(false);
static GLOBAL_HOOK: OnceLock<()> = OnceLock::new();

type IoErrorHandler = unsafe extern "C" fn(*mut c_void) -> c_int;
type SetIoErrorHandler = unsafe extern "C" fn(Option<IoErrorHandler>) -> Option<IoErrorHandler>;
type IoExitHandler = unsafe extern "C" fn(*mut c_void, *mut c_void);
type SetIoExitHandler = unsafe extern "C" fn(*mut c_void, Option<IoExitHandler>, *mut c_void);

/// Whether the X connection of the windowed run was lost.
pub(crate) fn display_lost() -> bool {
    // SeqCst: a flag set on whichever thread Xlib noticed the loss.
    LOST.load(Ordering::SeqCst)
}

/// The event loop noticed the loss and begins the ordered shutdown
/// (bounded by [`LOST_STOP_TIMEOUT`]): the watchdog stands down.
pub(crate) fn shutdown_begun() {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
}

/// Starts the watchdog once (module docs). Called from the Xlib handlers:
/// it touches nothing of Xlib.
fn arm_watchdog() {
    if WATCHDOG_ARMED.swap(true, Ordering::SeqCst) {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("laige-x11-watchdog".to_owned())
        .spawn(|| {
            std::thread::sleep(WATCHDOG);
            if !SHUTTING_DOWN.load(Ordering::SeqCst) {
                exit_lost("the event loop is blocked inside Xlib");
            }
        });
    // No thread (out of resources): the run goes on without the fallback.
    drop(spawned);
}

/// Writes the laige error line and ends the process with exit code 4
/// without running exit hooks (they would call back into the broken Xlib).
fn exit_lost(why: &str) -> ! {
    let line = format!("laige: {} ({why}; exiting with code 4)\n", lost_error());
    // SAFETY: write(2) of a live buffer to stderr; the result does not
    // matter (the process ends next).
    unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
    // SAFETY: _exit(2) ends the process at once; nothing runs after it.
    unsafe { libc::_exit(c_int::from(crate::EXIT_RENDER_FAILED)) }
}

/// The run's error for a lost display.
pub(crate) fn lost_error() -> Error {
    let display = std::env::var("DISPLAY").unwrap_or_default();
    Error::new(ErrorCode::Failed, events::DISPLAY_LOST)
        .with_field("DISPLAY")
        .with_value(Error::quoted(&display))
        .with_detail("the connection to the X server was lost (the server ended or was killed)")
}

/// Installs both hooks for the Xlib `display` (a `Display*` winit
/// opened). Does nothing when libX11 is not loaded (Wayland).
pub(crate) fn install(display: *mut c_void) {
    let Some(lib) = libx11() else {
        return;
    };
    // SAFETY: `lib` is a live handle of the loaded libX11; the names are
    // NUL-terminated; a symbol that exists has the C signature of Xlib's
    // public header, which the function types above spell out.
    let (set_io, set_exit) = unsafe {
        (
            libc::dlsym(lib, c"XSetIOErrorHandler".as_ptr()),
            libc::dlsym(lib, c"XSetIOErrorExitHandler".as_ptr()),
        )
    };
    if !set_exit.is_null() && !display.is_null() {
        // SAFETY: the symbol is Xlib's `XSetIOErrorExitHandler(Display*,
        // XIOErrorExitHandler, void*)`; `display` is the connection winit
        // opened and keeps open for the whole run.
        let set_exit: SetIoExitHandler = unsafe { std::mem::transmute(set_exit) };
        // SAFETY: as above; the handler is a plain function valid forever.
        unsafe { set_exit(display, Some(on_io_exit), std::ptr::null_mut()) };
        RETURNABLE.store(true, Ordering::SeqCst);
    }
    if !set_io.is_null() {
        GLOBAL_HOOK.get_or_init(|| {
            // SAFETY: the symbol is Xlib's `XSetIOErrorHandler(
            // XIOErrorHandler)`; the handler is a plain function valid
            // forever.
            let set_io: SetIoErrorHandler = unsafe { std::mem::transmute(set_io) };
            // SAFETY: as above.
            unsafe { set_io(Some(on_io_error)) };
        });
    }
}

/// The loaded libX11, if any (never loads it).
fn libx11() -> Option<*mut c_void> {
    // SAFETY: RTLD_NOLOAD only returns a handle of an already loaded
    // library (bumping its count; it is never closed, like winit's).
    let lib = unsafe { libc::dlopen(c"libX11.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    (!lib.is_null()).then_some(lib)
}

/// Xlib's I/O error handler: the display is lost. Returns when the exit
/// handler is installed (Xlib then calls it instead of `exit(1)`); ends
/// the process with exit code 4 otherwise (module docs).
unsafe extern "C" fn on_io_error(_display: *mut c_void) -> c_int {
    LOST.store(true, Ordering::SeqCst);
    if !RETURNABLE.load(Ordering::SeqCst) {
        exit_lost("libX11 before 1.7 cannot return from its I/O error");
    }
    arm_watchdog();
    0
}

/// Xlib's per-display I/O error exit handler: returning is the point
/// (module docs).
unsafe extern "C" fn on_io_exit(_display: *mut c_void, _data: *mut c_void) {
    LOST.store(true, Ordering::SeqCst);
    arm_watchdog();
}
