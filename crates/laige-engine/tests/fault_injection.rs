//! Fault injection: every defect found by driving laige as a fault
//! injector would (hostile configs, hostile and torn replay files, an
//! overloaded loop) is one test here, so it stays fixed.
//!
//! One module per area; each test names the fault it injects and asserts
//! the outcome a user sees (the error's id, field, value and range, the
//! exit path, the exact counts). Process-level faults of the engine itself
//! (a shutdown that hangs) run this binary again as a child
//! (`shutdown.rs`); those that need the demo's command line (signals at
//! random instants, a lost X server, a full disk under `--record`) are
//! `crates/laige-demo/tests/fault_injection.rs`. Each area is a file in
//! `tests/fault_injection/` and one `#[path]` line here.

#[path = "fault_injection/config.rs"]
mod config;
#[path = "fault_injection/overload.rs"]
mod overload;
#[path = "fault_injection/replay.rs"]
mod replay;
#[path = "fault_injection/shutdown.rs"]
mod shutdown;

/// A scratch directory for one test, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    /// Creates the directory for test `name` (in this process).
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("laige-fault-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Writes `contents` to `name` in the directory; returns its path.
    pub fn file(&self, name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bytes this process has read through `read` calls so far
/// (`/proc/self/io`, `rchar`): how much of a file a reader touched,
/// without timing anything. Tests of this target run in parallel, so a
/// bound on a delta must leave room for the others' reads.
pub fn bytes_read() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap()
}

#[path = "fault_injection/fuzz.rs"]
mod fuzz;
