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
