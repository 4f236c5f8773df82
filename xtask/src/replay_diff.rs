//! `cargo xtask replay-diff A.lrp B.lrp`: where two recordings of one run
//! part, down to the entity, the component type and the field with both
//! values.
//!
//! 1. The recorded state hashes are bisected (`laige_sim::replay::
//!    first_difference`): the first checkpoint whose hashes differ, the
//!    last equal one before it, and the newest keyframe both files hold at
//!    or before that.
//! 2. Each side re-simulates the window with its own build: the demo
//!    binary (`--demo`, default `target/debug/laige-demo`, built by `cargo
//!    build -p laige-demo` when missing) runs `--replay FILE --seek T …
//!    --dump-dir DIR` for every tick of the window, starting from that
//!    keyframe and checking the side's own recorded hashes on the way, with
//!    the side's environment (`--a-env` / `--b-env KEY=VALUE`: how a test
//!    makes a changed build) and the demo arguments after `--` (the
//!    recording's `--entities`, `--config`).
//! 3. The dumps of each tick are compared with `desync-diff`'s comparison;
//!    the first tick whose dumps differ is printed with every differing
//!    field and both values.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use laige_sim::replay::{Replay, first_difference};

use crate::desync_diff;

/// The command's arguments.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first recording.
    a: PathBuf,
    /// The second recording.
    b: PathBuf,
    /// The demo binary that re-simulates both sides (default: the workspace's
    /// `target/debug/laige-demo`, built first when missing).
    #[arg(long, value_name = "BIN")]
    demo: Option<PathBuf>,
    /// An environment variable of the first side's run (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    a_env: Vec<String>,
    /// An environment variable of the second side's run (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    b_env: Vec<String>,
    /// The demo's arguments for the recording (`--entities N`, `--config FILE`).
    #[arg(last = true)]
    demo_args: Vec<String>,
}

/// Runs the command: prints where the recordings part; fails when they do
/// (and when they cannot be compared).
pub fn run(args: &Args) -> anyhow::Result<()> {
    let read = |p: &Path| {
        Replay::read_prefix(p)
            .and_then(|r| r.into_playable())
            .map(|(r, _)| r)
            .with_context(|| format!("reading {}", p.display()))
    };
    let (a, b) = (read(&args.a)?, read(&args.b)?);
    let Some(d) = first_difference(&a, &b)? else {
        println!(
            "replay-diff: every common checkpoint agrees ({} and {} ticks)",
            a.ticks(),
            b.ticks()
        );
        return Ok(());
    };
    println!("replay-diff: {d}");
    let from = d
        .last_equal
        .unwrap_or_else(|| a.start_tick().max(b.start_tick()));
    let demo = match &args.demo {
        Some(p) => p.clone(),
        None => default_demo()?,
    };
    let dir = std::env::temp_dir().join(format!("laige-replay-diff-{}", std::process::id()));
    let window: Vec<u64> = (from..=d.tick).collect();
    let side = |name: &str, file: &Path, env: &[String]| -> anyhow::Result<PathBuf> {
        let out = dir.join(name);
        std::fs::create_dir_all(&out)?;
        let mut c = Command::new(&demo);
        c.arg("--replay").arg(file);
        for t in &window {
            c.arg("--seek").arg(t.to_string());
        }
        c.arg("--dump-dir").arg(&out).args(&args.demo_args);
        for kv in env {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("--{name}-env {kv:?}: expected KEY=VALUE"))?;
            c.env(k, v);
        }
        let o = c
            .output()
            .with_context(|| format!("running {}", demo.display()))?;
        let text = String::from_utf8_lossy(&o.stdout);
        // The side's own seek report: where it started, what it checked.
        if let Some(line) = text.lines().find(|l| l.starts_with("laige-demo: seek")) {
            println!("replay-diff: side {name}: {line}");
        }
        if o.status.code() == Some(5) {
            let why = text
                .lines()
                .find(|l| l.contains("replay diverged"))
                .unwrap_or_default();
            bail!(
                "side {name}: this build does not reproduce its own recording {} ({why}): \
                 give the build that recorded it (--{name}-env, --demo)",
                file.display()
            );
        }
        if !o.status.success() {
            bail!(
                "side {name} ({}) failed: {}\n{text}{}",
                file.display(),
                o.status,
                String::from_utf8_lossy(&o.stderr)
            );
        }
        Ok(out)
    };
    let result = (|| {
        let da = side("a", &args.a, &args.a_env)?;
        let db = side("b", &args.b, &args.b_env)?;
        for &t in &window {
            let dump = |d: &Path| -> anyhow::Result<desync_diff::Dump> {
                let p = d.join(format!("tick-{t}.dump"));
                let text = std::fs::read_to_string(&p)
                    .with_context(|| format!("reading {}", p.display()))?;
                desync_diff::parse(&text).with_context(|| format!("parsing {}", p.display()))
            };
            let differences = desync_diff::compare(&dump(&da)?, &dump(&db)?);
            if differences.is_empty() {
                println!("replay-diff: tick {t}: the two sides' states agree");
                continue;
            }
            println!("replay-diff: tick {t}: the states differ (re-simulated on both sides):");
            for line in &differences {
                println!("  {line}");
            }
            bail!("the recordings diverge at tick {t}")
        }
        bail!(
            "the recorded hashes differ at tick {}, but the re-simulated states agree: \
             the builds given here are not the ones that recorded (--a-env, --b-env, --demo)",
            d.tick
        )
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// `target/debug/laige-demo` of this workspace, built when missing.
fn default_demo() -> anyhow::Result<PathBuf> {
    let bin = crate::run::root()
        .join("target")
        .join("debug")
        .join(format!("laige-demo{}", std::env::consts::EXE_SUFFIX));
    if !bin.exists() {
        let status = crate::run::cargo()
            .args(["build", "-p", "laige-demo"])
            .status()
            .context("building laige-demo")?;
        if !status.success() {
            bail!("cargo build -p laige-demo failed");
        }
    }
    Ok(bin)
}
