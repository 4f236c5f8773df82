//! `cargo xtask net-cross` (and a step of `cargo xtask test`): an x86_64
//! peer and an aarch64 peer (under user-mode QEMU, the runner of
//! `.cargo/config.toml`) play the demo over loopback for 1,260 ticks at
//! 120 Hz, every packet delayed 50 ms ± 20 ms with 5 % loss, and must
//! agree on the state hash of every confirmed tick 1..=1,200: the
//! end-to-end proof that two different machines share one simulation.
//!
//! The aarch64 demo is built headless (`--no-default-features`: no window
//! or GL) in release, in detcheck's cross target directory (its laige
//! dependencies are the scenario's); the native peer is the workspace's
//! debug demo. Prints the ticks, each peer's rollbacks and the hashes
//! compared, with the build and play times.

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail, ensure};

use crate::run::root;

const TRIPLE: &str = "aarch64-unknown-linux-gnu";
/// Ticks compared; the peers run 60 more so that the last compared
/// ticks' inputs are confirmed on both.
const COMPARED: u64 = 1_200;
const RUN_TICKS: &str = "1260";
/// The play must finish within this (the step's budget is 90 s).
const PLAY_LIMIT: Duration = Duration::from_secs(80);

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// The aarch64 build's cargo arguments (the same for build and run).
fn cross(c: &mut Command) {
    c.args([
        "--quiet",
        "--release",
        "-p",
        "laige-demo",
        "--no-default-features",
        "--target",
        TRIPLE,
    ]);
    c.env("CARGO_TARGET_DIR", root().join("target/detcheck/cross"));
}

fn run_checked(mut c: Command, what: &str) -> anyhow::Result<()> {
    let status = c.status().with_context(|| format!("starting {what}"))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

/// Runs the step; prints its figures.
pub fn run() -> anyhow::Result<()> {
    let started = Instant::now();
    let mut build = cargo();
    build.arg("build");
    cross(&mut build);
    run_checked(
        build,
        &format!("cargo build -p laige-demo --target {TRIPLE}"),
    )?;
    let mut native = cargo();
    native.args(["build", "--quiet", "-p", "laige-demo"]);
    run_checked(native, "cargo build -p laige-demo")?;
    let built = started.elapsed();

    let dir = std::env::temp_dir().join(format!("laige-net-cross-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = play(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let (rollbacks, compared, played) = result?;
    println!(
        "net-cross: x86_64 (host) vs {TRIPLE} under QEMU (joiner): {RUN_TICKS} ticks at 120 Hz \
         through 50 ms ± 20 ms, 5 % loss; rollbacks {} / {}; {compared} confirmed hashes compared, \
         all equal (build {:.1} s, play {:.1} s)",
        rollbacks[0],
        rollbacks[1],
        built.as_secs_f64(),
        played.as_secs_f64()
    );
    Ok(())
}

fn demo_args(dir: &Path, hashes: &str) -> Vec<String> {
    [
        "--config",
        &dir.join("120hz.toml").to_string_lossy(),
        "--entities",
        "200",
        "--ticks",
        RUN_TICKS,
        "--quiet",
        "--net-hashes",
        &dir.join(hashes).to_string_lossy(),
        "--fault-latency-ms",
        "50",
        "--fault-jitter-ms",
        "20",
        "--fault-loss-per-mille",
        "50",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect()
}

fn spawn(mut c: Command) -> anyhow::Result<Child> {
    c.env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c.spawn().context("starting a demo peer")
}

/// Both peers' rollbacks, the hashes compared, the play time.
fn play(dir: &Path) -> anyhow::Result<([u64; 2], u64, Duration)> {
    std::fs::write(dir.join("120hz.toml"), "[loop]\ntick_rate_hz = 120\n")?;
    let port = UdpSocket::bind("127.0.0.1:0")?
        .local_addr()?
        .port()
        .to_string();
    let started = Instant::now();
    let mut host = cargo();
    host.args(["run", "--quiet", "-p", "laige-demo", "--"])
        .args(demo_args(dir, "host.txt"))
        .args(["--net", "host", "--port", &port]);
    let mut join = cargo();
    join.arg("run");
    cross(&mut join);
    join.arg("--").args(demo_args(dir, "join.txt")).args([
        "--net",
        "join",
        &format!("127.0.0.1:{port}"),
    ]);
    let peers = [spawn(host)?, spawn(join)?];
    let outs = peers.map(|p| finish(p, started + PLAY_LIMIT));
    let played = started.elapsed();
    let mut rollbacks = [0; 2];
    for (i, (name, out)) in ["x86_64 host", "aarch64 joiner"]
        .iter()
        .zip(&outs)
        .enumerate()
    {
        let (code, stdout, stderr) = out.as_ref().map_err(|e| anyhow::anyhow!("{e:#}"))?;
        ensure!(
            *code == 0,
            "the {name} exited with {code}:\n{stdout}\n{stderr}"
        );
        rollbacks[i] = rollbacks_of(stdout).with_context(|| format!("the {name}'s report"))?;
    }
    let [a, b] = [
        hashes(&dir.join("host.txt"))?,
        hashes(&dir.join("join.txt"))?,
    ];
    for t in 1..=COMPARED {
        match (a.get(&t), b.get(&t)) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => bail!("tick {t}: x86_64 {x:?}, aarch64 {y:?}"),
        }
    }
    Ok((rollbacks, COMPARED, played))
}

/// Waits for `child` until `deadline` (then kills it).
fn finish(mut child: Child, deadline: Instant) -> anyhow::Result<(i32, String, String)> {
    while child.try_wait()?.is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output()?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The rollbacks of the report's `net:` line.
fn rollbacks_of(out: &str) -> anyhow::Result<u64> {
    let line = out
        .lines()
        .find(|l| l.starts_with("net:"))
        .context("no net line")?;
    let (_, after) = line.split_once(" ticks, ").context("no ticks figure")?;
    let figure = after.split(' ').next().unwrap_or_default();
    figure
        .parse()
        .with_context(|| format!("no rollback figure in {line}"))
}

fn hashes(path: &PathBuf) -> anyhow::Result<BTreeMap<u64, String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .map(|l| {
            let (tick, hash) = l.split_once(' ').context("a hash line")?;
            Ok((tick.parse()?, hash.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rollbacks_are_read_off_the_net_line() {
        let out =
            "exit: completed\nnet:        1260 ticks, 75 rollbacks (247 ticks re-simulated), rtt\n";
        assert_eq!(rollbacks_of(out).unwrap(), 75);
        assert!(rollbacks_of("exit: completed\n").is_err());
    }
}
