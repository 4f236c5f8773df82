//! Stop signals: the flag the run loops check once per frame.
//!
//! The engine installs one process-wide handler for **SIGINT** (Ctrl-C),
//! **SIGTERM** (a supervisor's or `kill`'s stop) and **SIGHUP** (the
//! terminal went away) the first time a run asks for it
//! ([`EngineOptions::handle_ctrl_c`](crate::EngineOptions)), through the
//! `signal-hook` crate: its handlers only store to atomics (async-signal
//! safe), and it tells which signal arrived, so each one ends the run with
//! its own exit code.
//!
//! - The **first** stop signal raises the flag and records which signal it
//!   was: the running loop notices it at its next frame and ends through
//!   the ordered shutdown with [`ExitReason::Interrupted`](crate::ExitReason)
//!   and exit code 128 + the signal's number (130 for SIGINT, 143 for
//!   SIGTERM, 129 for SIGHUP: what a shell reports for a process that
//!   signal killed, so scripts see the usual values).
//! - A **second** stop signal while the flag is up exits the process at
//!   once, from inside the signal handler (`_exit`, with 128 + that
//!   signal's number): no thread has to be scheduled and no lock taken, so
//!   it works even when the shutdown hangs. The records already written
//!   stay on disk (a recording is flushed record by record); nothing else
//!   runs.
//!
//! The flag goes down when a run that it ended has shut down (so the next
//! run in the same process starts clean); a signal that arrives while a
//! run is starting up is kept and ends that run at its first frame, and
//! one that arrives during a shutdown begun for another reason changes
//! nothing but arms the second-signal exit.
//!
//! [`request`] raises the same flag from code (tests, a supervisor thread),
//! as SIGINT would, without arming the second-signal exit.

#[cfg(unix)]
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use laige_core::Result;
#[cfg(unix)]
use laige_core::{Error, ErrorCode};
#[cfg(unix)]
use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};

// Without POSIX signals (wasm, Windows) nothing delivers them: the POSIX
// numbers stay, for the exit codes of runs `request` ends.
#[cfg(not(unix))]
const SIGINT: i32 = 2;
#[cfg(not(unix))]
const SIGTERM: i32 = 15;
#[cfg(not(unix))]
const SIGHUP: i32 = 1;

#[cfg(unix)]
use crate::events;

/// A signal that stops a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopSignal {
    /// SIGINT: Ctrl-C in the terminal (also what [`request`] raises).
    Interrupt,
    /// SIGTERM: the polite stop of `kill`, service managers and CI runners.
    Terminate,
    /// SIGHUP: the controlling terminal closed.
    Hangup,
}

impl StopSignal {
    /// Every stop signal, in the order the handler is installed.
    pub const ALL: [Self; 3] = [Self::Interrupt, Self::Terminate, Self::Hangup];

    /// The signal's number on this platform.
    #[must_use]
    pub fn number(self) -> i32 {
        match self {
            Self::Interrupt => SIGINT,
            Self::Terminate => SIGTERM,
            Self::Hangup => SIGHUP,
        }
    }

    /// `SIGINT`, `SIGTERM` or `SIGHUP`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Interrupt => "SIGINT",
            Self::Terminate => "SIGTERM",
            Self::Hangup => "SIGHUP",
        }
    }

    /// The exit code of a run this signal ended: 128 + its number.
    #[must_use]
    pub fn exit_code(self) -> u8 {
        exit_code_of(self.number())
    }

    fn from_number(n: usize) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|s| usize::try_from(s.number()) == Ok(n))
    }
}

impl std::fmt::Display for StopSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// 128 + `signal` (signal numbers are small positive integers).
fn exit_code_of(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// The signal that raised the flag (its number), 0 while it is down.
/// Written by the signal handlers (`signal-hook` stores with SeqCst) and
/// by [`request`]; read by the loops.
static RAISED: AtomicUsize = AtomicUsize::new(0);
/// Up once a real stop signal arrived: the next one exits at once.
static ARMED: AtomicBool = AtomicBool::new(false);
#[cfg(unix)]
static INSTALLED: OnceLock<std::result::Result<(), String>> = OnceLock::new();

/// The stop-signal handler.
///
/// On targets without POSIX signals (wasm, Windows) there is nothing to
/// install: `Ok(())`, and [`request`] is the only way to raise the flag.
#[cfg(not(unix))]
pub fn install_handler() -> Result<()> {
    Ok(())
}

/// Installs the process's stop-signal handler for SIGINT, SIGTERM and
/// SIGHUP (once; later calls return the first call's outcome).
///
/// For each signal three actions run in order inside the handler: exit
/// at once with 128 + the signal's number if the flag was already armed;
/// record the signal; arm. All three are stores and loads of atomics.
///
/// # Errors
/// `engine/signal_handler_failed` (Failed) when the platform refused.
#[cfg(unix)]
pub fn install_handler() -> Result<()> {
    let outcome = INSTALLED.get_or_init(|| {
        StopSignal::ALL.into_iter().try_for_each(|s| {
            let n = s.number();
            let value = usize::try_from(n).unwrap_or(0);
            signal_hook::flag::register_conditional_shutdown(n, i32::from(s.exit_code()), &ARMED)
                .and_then(|_| signal_hook::flag::register_usize(n, &RAISED, value))
                .and_then(|_| signal_hook::flag::register(n, &ARMED))
                .map(drop)
                .map_err(|e| format!("{}: {e}", s.name()))
        })
    });
    outcome.clone().map_err(|message| {
        laige_core::diag::reported(
            Error::new(ErrorCode::Failed, events::SIGNAL_HANDLER_FAILED)
                .with_detail(format!("installing the stop-signal handler: {message}")),
        )
    })
}

/// Raises the flag as SIGINT does: the running loop ends at its next frame
/// with `ExitReason::Interrupted(StopSignal::Interrupt)`. Does not arm the
/// second-signal exit.
pub fn request() {
    let _ = RAISED.compare_exchange(
        0,
        usize::try_from(SIGINT).unwrap_or(2),
        Ordering::SeqCst,
        Ordering::SeqCst,
    );
}

/// The signal that raised the flag, if it is up.
#[must_use]
pub fn requested() -> Option<StopSignal> {
    // SeqCst: the handlers store with SeqCst; the value itself is all that
    // is read (no other memory depends on it).
    StopSignal::from_number(RAISED.load(Ordering::SeqCst))
}

/// Whether the flag is up.
#[must_use]
pub fn is_requested() -> bool {
    requested().is_some()
}

/// Takes the flag down and disarms the second-signal exit. A run does this
/// when the flag ended it, after its shutdown; call it before a run only
/// to discard a signal that arrived earlier on purpose.
pub fn clear() {
    ARMED.store(false, Ordering::SeqCst);
    RAISED.store(0, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stop_signal_has_the_shell_exit_code() {
        let codes: Vec<_> = StopSignal::ALL
            .iter()
            .map(|s| (s.name(), s.exit_code()))
            .collect();
        assert_eq!(codes, [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)]);
        for s in StopSignal::ALL {
            assert_eq!(
                StopSignal::from_number(usize::try_from(s.number()).unwrap()),
                Some(s)
            );
        }
        assert_eq!(StopSignal::from_number(0), None);
        assert_eq!(StopSignal::from_number(9), None);
    }
}
