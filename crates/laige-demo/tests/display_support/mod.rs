//! What the harness-less display tests share: their report lines, and the
//! rule that a missing display is a skip locally and a failure in CI
//! (`LAIGE_REQUIRE_DISPLAY=1`).

use std::process::ExitCode;

/// Whether a missing display fails the test (`LAIGE_REQUIRE_DISPLAY=1`).
pub fn display_required() -> bool {
    std::env::var("LAIGE_REQUIRE_DISPLAY").is_ok_and(|v| v == "1")
}

/// One report line on stdout, flushed.
pub fn line(text: &str) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Test `test` cannot run (`why`): one `SKIPPED` line naming what to
/// install (`install`) and success, or with `LAIGE_REQUIRE_DISPLAY=1` one
/// `FAILED` line and failure.
pub fn skip_or_fail(test: &str, why: &str, install: &str) -> ExitCode {
    if display_required() {
        line(&format!("FAILED: {test}: {why} (LAIGE_REQUIRE_DISPLAY=1)"));
        ExitCode::FAILURE
    } else {
        line(&format!(
            "SKIPPED: {test}: {why}; install {install} or set LAIGE_REQUIRE_DISPLAY=1 to make this a failure"
        ));
        ExitCode::SUCCESS
    }
}

/// Runs `check` of test `test` on an X11 display: the session's
/// (`DISPLAY`), else a private Xvfb on a free number of `numbers` (each
/// test its own range, so that they can run at once); neither → skip or
/// fail ([`skip_or_fail`]). Reports `check`'s message and one summary
/// line; the exit code.
pub fn run_on_display(
    test: &str,
    numbers: std::ops::Range<u32>,
    check: impl FnOnce(&str) -> Result<String, String>,
) -> ExitCode {
    let session = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
    let (xvfb, display) = match session {
        Some(d) => (None, d),
        None => match laige_testkit::PrivateXvfb::start(numbers, "1280x800x24") {
            Some(x) => {
                let d = x.display().to_owned();
                line(&format!("{test}: started Xvfb on {d}"));
                (Some(x), d)
            }
            None => return skip_or_fail(test, "no X11 display and no Xvfb to start", "Xvfb"),
        },
    };
    let outcome = check(&display);
    drop(xvfb);
    match outcome {
        Ok(msg) => {
            line(&msg);
            line(&format!("{test}: 1 passed; 0 failed"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            line(&format!("FAILED: {test}: {e}"));
            ExitCode::FAILURE
        }
    }
}
