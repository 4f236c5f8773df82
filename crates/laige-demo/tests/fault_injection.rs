//! Process-level fault injection on the demo binary, as a user or a
//! supervisor would cause the faults: stop signals at random instants of a
//! recording run (`signals.rs`), the X server dying under a windowed run
//! (`x_server.rs`), the disk filling under `--record` (`disk_full.rs`).
//! Each test asserts what a user sees: the
//! exit code, the report's lines, the shutdown's events in order, and that
//! the recording left behind is a valid replay.
//!
//! The engine's own fault injection (configs, replay files, overload,
//! hung shutdowns) is `crates/laige-engine/tests/fault_injection.rs`.

#![expect(unsafe_code, reason = "libc::kill sends the real signals")]
#![allow(
    clippy::print_stdout,
    reason = "each test prints one summary line of what it tried"
)]

use std::process::{Child, ExitStatus};
use std::time::Duration;

#[allow(
    dead_code,
    reason = "shared with the other demo tests; this one uses DEMO only"
)]
mod support;

pub use support::DEMO;

#[path = "fault_injection/disk_full.rs"]
mod disk_full;
#[path = "fault_injection/signals.rs"]
mod signals;
#[path = "fault_injection/x_server.rs"]
mod x_server;

/// A scratch directory for one test, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// Creates the directory for test `name` (in this process).
    pub fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("laige-demo-fault-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sends `signal` to `child` (not yet reaped).
pub fn kill(child: &Child, signal: i32) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) takes plain integers and touches no memory of ours;
    // the pid is our own child's, not yet reaped, so it names no other
    // process.
    let rc = unsafe { libc::kill(pid, signal) };
    assert_eq!(rc, 0, "kill({pid}, {signal})");
}

/// Waits for `child` (its pipes read meanwhile) for at most `limit`: its
/// status, stdout and stderr. A child still running then is killed and
/// the test fails.
pub fn wait_with_output(child: Child, limit: Duration) -> (ExitStatus, String, String) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => {
            let out = out.unwrap();
            (
                out.status,
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        }
        Err(_) => {
            // SAFETY: as in `kill`; the waiting thread has not reaped the
            // child (it would have sent its output).
            unsafe { libc::kill(pid, libc::SIGKILL) };
            // What it printed before it was killed: where it hung.
            let printed = rx
                .recv_timeout(Duration::from_secs(5))
                .ok()
                .and_then(Result::ok)
                .map_or_else(
                    || "(no output)".to_owned(),
                    |out| {
                        format!(
                            "--- stdout\n{}\n--- stderr\n{}",
                            String::from_utf8_lossy(&out.stdout),
                            String::from_utf8_lossy(&out.stderr)
                        )
                    },
                );
            panic!("the demo (pid {pid}) did not exit within {limit:?}\n{printed}");
        }
    }
}
