//! What the two-process network tests of the demo share: the faults, a
//! scratch directory, spawning and waiting for a peer, its hash log and
//! its closing line.

#![allow(dead_code, reason = "each test binary uses a part")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

// One home for the peers' ports: laige-net's test support.
#[path = "../../../laige-net/tests/support/ports.rs"]
mod ports;
#[allow(unused_imports, reason = "each test binary uses a part")]
pub use ports::free_port;

/// The demo binary built for this test run.
pub const DEMO: &str = env!("CARGO_BIN_EXE_laige-demo");

/// The faults of every peer: 50 ms one way, ±20 ms, 5 % loss.
pub const FAULTS: [&str; 6] = [
    "--fault-latency-ms",
    "50",
    "--fault-jitter-ms",
    "20",
    "--fault-loss-per-mille",
    "50",
];

pub struct Scratch(PathBuf);

/// A scratch directory with a 120 Hz engine config, removed on drop.
impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("laige-demo-net-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("120hz.toml"), "[loop]\ntick_rate_hz = 120\n").unwrap();
        Self(dir)
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    pub fn config(&self) -> String {
        self.path("120hz.toml").to_string_lossy().into_owned()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The demo with `args` (warn-level logs), its output piped.
pub fn spawn(args: &[String]) -> Child {
    spawn_command(Command::new(DEMO).args(args).env("RUST_LOG", "warn"))
}

/// `command` (the demo, or a wrapper that runs it), its output piped.
pub fn spawn_command(command: &mut Command) -> Child {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the demo binary runs")
}

/// Waits for `child` (killing it after `limit`): exit code, stdout, stderr.
pub fn finish(mut child: Child, limit: Duration) -> (i32, String, String) {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A `--net-hashes` file: tick → hash.
pub fn hashes(path: &Path) -> BTreeMap<u64, String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| {
            let (tick, hash) = l.split_once(' ').unwrap();
            (tick.parse().unwrap(), hash.to_owned())
        })
        .collect()
}

/// The closing line of a session (`laige-demo: pilots 0 (x, y) 1 (x, y);
/// sprites N`): every player's last pointer and the sprites alive.
pub fn pilots(out: &str) -> (Vec<(i32, i32)>, u64) {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("laige-demo: pilots "))
        .unwrap_or_else(|| panic!("no pilots line in:\n{out}"));
    let (players, sprites) = line.split_once("; sprites ").unwrap();
    let points = players
        .split(')')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (_, xy) = p.split_once('(').unwrap();
            let (x, y) = xy.split_once(", ").unwrap();
            (x.trim().parse().unwrap(), y.trim().parse().unwrap())
        })
        .collect();
    (points, sprites.trim().parse().unwrap())
}
