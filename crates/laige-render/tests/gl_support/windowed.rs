//! Shared by the windowed GL tests (`harness = false`: winit's event loop
//! must own the process's main thread): the display rule, the private Xvfb
//! re-run, and the verdict lines.
//!
//! Display rule: without `DISPLAY`/`WAYLAND_DISPLAY` the test re-runs
//! itself against a private Xvfb (`laige_testkit::PrivateXvfb`); when no
//! Xvfb can start either, it prints one `SKIPPED` line and passes — unless
//! `LAIGE_REQUIRE_DISPLAY=1` (set by CI), which makes that a failure.

use std::ops::Range;
use std::process::{Command, ExitCode};

use winit::application::ApplicationHandler;
use winit::event_loop::EventLoop;

use crate::gl_support::visible_line;

/// One windowed test binary.
pub struct WindowedTest {
    /// The binary's name, at the start of every line it prints.
    pub name: &'static str,
    /// How many checks a passing run made (its closing line).
    pub passed: u32,
    /// X display numbers to try for the private Xvfb (disjoint per test, so
    /// two windowed tests can run at once).
    pub xvfb_displays: Range<u32>,
    /// Set in the re-run's environment, so it does not start another Xvfb.
    pub rerun_marker: &'static str,
}

/// The app's result once the event loop has ended: `Ok(line)` to print, or
/// the failure; `None` when the loop ended before the app decided.
pub trait Outcome {
    fn outcome(&mut self) -> Option<Result<String, String>>;
}

impl WindowedTest {
    /// Runs `A` on this process's event loop (after the display rule) and
    /// prints the verdict.
    pub fn main<A: ApplicationHandler + Outcome + Default>(&self) -> ExitCode {
        let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
        if !has_display {
            if std::env::var_os(self.rerun_marker).is_none()
                && let Some(code) = self.run_under_private_xvfb()
            {
                return code;
            }
            return self.skip_or_fail(
                "no display (DISPLAY and WAYLAND_DISPLAY are unset) and no Xvfb to start",
            );
        }
        let event_loop = match EventLoop::new() {
            Ok(el) => el,
            Err(e) => return self.skip_or_fail(&format!("cannot connect to the display: {e}")),
        };
        let mut app = A::default();
        if let Err(e) = event_loop.run_app(&mut app) {
            return self.fail(&format!("event loop: {e}"));
        }
        match app.outcome() {
            Some(Ok(line)) => {
                visible_line(&line);
                visible_line(&format!("{}: {} passed; 0 failed", self.name, self.passed));
                ExitCode::SUCCESS
            }
            Some(Err(e)) => self.fail(&e),
            None => self.fail("the event loop ended without an outcome"),
        }
    }

    fn fail(&self, why: &str) -> ExitCode {
        visible_line(&format!("FAILED: {}: {why}", self.name));
        ExitCode::FAILURE
    }

    fn skip_or_fail(&self, why: &str) -> ExitCode {
        if std::env::var("LAIGE_REQUIRE_DISPLAY").is_ok_and(|v| v == "1") {
            self.fail(&format!("{why} (LAIGE_REQUIRE_DISPLAY=1)"))
        } else {
            visible_line(&format!(
                "SKIPPED: {}: {why}; run under `xvfb-run -a` or set LAIGE_REQUIRE_DISPLAY=1 to make this a failure",
                self.name
            ));
            ExitCode::SUCCESS
        }
    }

    /// Re-runs this test binary against a private Xvfb and returns its
    /// verdict; `None` when no Xvfb could start.
    fn run_under_private_xvfb(&self) -> Option<ExitCode> {
        let exe = std::env::current_exe().ok()?;
        let xvfb = laige_testkit::PrivateXvfb::start(self.xvfb_displays.clone(), "320x240x24")?;
        let display = xvfb.display().to_owned();
        visible_line(&format!(
            "{}: no session display; started Xvfb on {display}",
            self.name
        ));
        let status = Command::new(exe)
            .env("DISPLAY", &display)
            .env_remove("WAYLAND_DISPLAY")
            .env(self.rerun_marker, "1")
            .status();
        drop(xvfb);
        Some(match status {
            Ok(s) if s.success() => ExitCode::SUCCESS,
            Ok(_) => ExitCode::FAILURE,
            Err(e) => self.fail(&format!("re-running under Xvfb: {e}")),
        })
    }
}
