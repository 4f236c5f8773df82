//! # laige-testkit
//!
//! Test support shared by laige's windowed tests and benches (one copy
//! instead of three): [`PrivateXvfb`], a private X server for a test that
//! needs a real window on a machine without a display; with the
//! `signaling` feature, [`signaling`]: a WebRTC signaling server on
//! 127.0.0.1 (also the `laige-signaling` binary).
//!
//! Not a dependency of any library crate: only tests, benches and tools use
//! it.

#[cfg(feature = "signaling")]
pub mod signaling;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A private `Xvfb` on the first free display number in a range, stopped
/// (and its socket and lock removed) when dropped.
///
/// Each user picks its own range (the render tests 90.., the demo tests
/// 140.., the bench 180..), so tests running in parallel never race for a
/// number; a number that is taken anyway (the server exits at once) is
/// skipped.
///
/// ```no_run
/// let xvfb = laige_testkit::PrivateXvfb::start(90..130, "320x240x24")
///     .expect("Xvfb is installed");
/// let display = xvfb.display(); // e.g. ":90", for the child's DISPLAY
/// # let _ = display;
/// ```
#[derive(Debug)]
pub struct PrivateXvfb {
    child: Child,
    display: String,
}

impl PrivateXvfb {
    /// Starts `Xvfb :n -screen 0 <screen> -nolisten tcp` on the first free
    /// `n` in `numbers` and waits (at most 10 s) for its socket. `None` when
    /// Xvfb is not installed or no server came up.
    #[must_use]
    pub fn start(numbers: std::ops::Range<u32>, screen: &str) -> Option<Self> {
        for n in numbers {
            if Path::new(&format!("/tmp/.X{n}-lock")).exists()
                || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            {
                continue;
            }
            let display = format!(":{n}");
            let mut child = Command::new("Xvfb")
                .args([display.as_str(), "-screen", "0", screen, "-nolisten", "tcp"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok()?; // not installed: no point trying other numbers
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                    return Some(Self { child, display });
                }
                // Exited (lost a race for the number) or never came up: try
                // the next number.
                if !matches!(child.try_wait(), Ok(None)) || Instant::now() > deadline {
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        None
    }

    /// The display name (`":90"`) to put in a child's `DISPLAY`.
    #[must_use]
    pub fn display(&self) -> &str {
        &self.display
    }
}

impl Drop for PrivateXvfb {
    /// Stops the server politely (SIGTERM, so it removes its socket and
    /// lock), forcefully after a second, and removes what it left behind.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(1);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let n = self.display.trim_start_matches(':');
        let _ = std::fs::remove_file(format!("/tmp/.X11-unix/X{n}"));
        let _ = std::fs::remove_file(format!("/tmp/.X{n}-lock"));
    }
}
