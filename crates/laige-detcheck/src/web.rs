//! The browser front end of the scenario binary (`wasm32-unknown-unknown`):
//! the page calls these exports (through wasm-bindgen's `--target web`
//! glue) instead of a command line. `xtask/web/detcheck-run.mjs` drives
//! them in Chromium:
//!
//! 1. [`detcheck_overflow_probe`] in a throwaway instance: it adds one to
//!    `i32::MAX` and traps where overflow checks are on (a panic aborts on
//!    this target, so the native `catch_unwind` probe cannot be used);
//! 2. [`detcheck_run`] in a fresh instance, with the arguments and the
//!    probe's answer; it returns the exit code, and [`detcheck_stdout`] /
//!    [`detcheck_stderr`] the text.
//!
//! A panic (a bug: the scenario returns errors, it does not panic) goes to
//! `console.error` with its message before the trap, so the page reports
//! it instead of a bare `unreachable`.

use std::sync::Mutex;

use wasm_bindgen::prelude::wasm_bindgen;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(text: &str);
}

/// The last run's stdout and stderr text.
static OUT: Mutex<(String, String)> = Mutex::new((String::new(), String::new()));

fn out() -> std::sync::MutexGuard<'static, (String, String)> {
    OUT.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `i32::MAX + 1`: traps in a build with overflow checks.
#[wasm_bindgen]
#[must_use]
pub fn detcheck_overflow_probe() -> i32 {
    std::hint::black_box(std::hint::black_box(i32::MAX) + std::hint::black_box(1))
}

/// Runs the command line `args` (without a program name); the exit code.
#[wasm_bindgen]
#[must_use]
pub fn detcheck_run(args: Vec<String>, overflow_checks: bool) -> u8 {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("laige-detcheck panicked: {info}"));
    }));
    let ran = laige_detcheck::cli::run(args, overflow_checks);
    *out() = (ran.stdout, ran.stderr);
    ran.code
}

/// Runs `args` as [`detcheck_run`] does, with `file` (its bytes fetched by
/// the page) standing for the path `name`: the `--verify-replay` recording
/// a page cannot read from a disk. Another path is not found.
#[wasm_bindgen]
#[must_use]
pub fn detcheck_run_with_file(
    args: Vec<String>,
    overflow_checks: bool,
    name: String,
    file: Vec<u8>,
) -> u8 {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("laige-detcheck panicked: {info}"));
    }));
    let ran = laige_detcheck::cli::run_with(args, overflow_checks, |path| {
        if path == std::path::Path::new(&name) {
            Ok(file.clone())
        } else {
            Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("the page was handed {name}, not {}", path.display()),
            ))
        }
    });
    *out() = (ran.stdout, ran.stderr);
    ran.code
}

/// The last run's report.
#[wasm_bindgen]
#[must_use]
pub fn detcheck_stdout() -> String {
    out().0.clone()
}

/// The last run's error line (empty on success).
#[wasm_bindgen]
#[must_use]
pub fn detcheck_stderr() -> String {
    out().1.clone()
}
