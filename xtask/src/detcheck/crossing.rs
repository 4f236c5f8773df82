//! The replay-crossing rows: the quick scenario recorded by the host's
//! release build on each backend (`--write-replay`), and each recording
//! played by every other target's build (`--verify-replay`).
//!
//! - Fixed point must verify everywhere (every recorded hash reproduced).
//! - Pinned float must verify where the known answers of x86_64 and the
//!   target agree. Where they differ (i586's x87), the playback must
//!   report a divergence, and the row names it down to the field: both
//!   sides dump the state at the first differing checkpoint
//!   (`--dump-at`), compared as `cargo xtask desync-diff` compares. A
//!   recording is never "verified" where the runs differ, and never
//!   "diverged" where they agree.
//!
//! The browser reads the recording as a native binary does, by its path
//! relative to the working directory: its runner serves the file and the
//! page hands the fetched bytes to the run (`detcheck_run_with_file`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, bail};

use super::known::{Answer, Known};
use super::matrix::Variant;
use super::verdict::{Row, Verdict};
use super::{BACKENDS, output_of};
use crate::desync_diff;

/// The recordings' scenario: 10 000 ticks, a checkpoint every 1 000.
const SCENE: &str = "--quick";
/// The ticks the quick scenario spans (what the known answers are cut at).
const QUICK_TICKS: u64 = 10_000;
/// Processes at a time (the machine's two cores).
const WORKERS: usize = 2;

/// What one target's playback printed: `verified:N`, or the first
/// differing tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    Verified(u64),
    Diverged(u64),
}

/// Parses the `crossing …` line of a `--verify-replay` run.
pub fn parse_played(stdout: &str) -> anyhow::Result<Played> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("crossing "))
        .context("no `crossing` line")?;
    let verdict = line
        .split(' ')
        .find_map(|w| w.strip_prefix("verdict="))
        .context("no verdict= in the crossing line")?;
    let number = |w: &str| w.parse::<u64>().with_context(|| format!("{line:?}"));
    if let Some(n) = verdict.strip_prefix("verified:") {
        Ok(Played::Verified(number(n)?))
    } else if let Some(t) = verdict.strip_prefix("diverged:") {
        Ok(Played::Diverged(number(t)?))
    } else {
        bail!("unknown verdict in {line:?}")
    }
}

/// The dump after a `dump tick=T lines=N` line.
pub fn dump_of(stdout: &str) -> anyhow::Result<String> {
    let mut lines = stdout.lines();
    lines
        .by_ref()
        .find(|l| l.starts_with("dump tick="))
        .context("no dump in the output")?;
    let mut text: String = lines.collect::<Vec<_>>().join("\n");
    text.push('\n');
    Ok(text)
}

/// Whether pinned float on `platform` gives x86_64's answer over the
/// quick scenario's ticks, by the known answers (`None`: no answer for
/// one of them).
pub fn pinned_agrees(known: &Known, platform: &str) -> Option<bool> {
    let answer = |p: &str| -> Option<&Answer> {
        ["full", "short"]
            .iter()
            .find_map(|mode| known.get(*mode)?.get("float_pinned_32")?.get(p))
    };
    let cut = |a: &Answer| -> Vec<(u64, u64)> {
        a.checkpoints
            .iter()
            .copied()
            .filter(|c| c.0 <= QUICK_TICKS)
            .collect()
    };
    let (host, other) = (answer("x86_64-linux")?, answer(platform)?);
    Some(cut(host) == cut(other))
}

/// One playback to run: a target's variant and a backend.
struct Job {
    variant: usize,
    backend: &'static str,
}

/// The crossing rows of the built `variants` (their builds' results in
/// `built`), and the seconds they took.
pub fn rows(
    variants: &[Variant],
    built: &[Result<f64, String>],
    known: &Known,
    dir: &Path,
) -> anyhow::Result<(Vec<Row>, f64)> {
    let started = std::time::Instant::now();
    let Some(host) = variants
        .iter()
        .position(|v| v.target.triple.is_none() && v.build.name == "release")
        .filter(|&i| built[i].is_ok())
    else {
        println!("detcheck: no host release build in this run: no replay-crossing rows");
        return Ok((Vec::new(), 0.0));
    };
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for backend in BACKENDS {
        let mut c = variants[host].run_command()?;
        c.current_dir(dir)
            .args([SCENE, "--backend", backend, "--write-replay"])
            .arg(recording(backend));
        output_of(&mut c, "the host's recording")
            .with_context(|| format!("recording {backend}"))?;
    }
    let mut jobs = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        let first_of_target = variants[..i].iter().all(|w| w.target.name != v.target.name);
        if v.target.triple.is_none() || !first_of_target || built[i].is_err() {
            continue;
        }
        for backend in BACKENDS {
            jobs.push(Job {
                variant: i,
                backend,
            });
        }
    }
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Row)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS.min(jobs.len()) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(k) else { break };
                    let row = row(variants, host, job, known, dir);
                    results
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((k, row));
                }
            });
        }
    });
    let mut results = results
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(k, _)| *k);
    Ok((
        results.into_iter().map(|(_, r)| r).collect(),
        started.elapsed().as_secs_f64(),
    ))
}

fn recording(backend: &str) -> PathBuf {
    PathBuf::from(format!("x86_64-{backend}.lrp"))
}

/// Plays one recording on one target and judges it.
fn row(variants: &[Variant], host: usize, job: &Job, known: &Known, dir: &Path) -> Row {
    let v = &variants[job.variant];
    let verdict = judge(variants, host, job, known, dir)
        .unwrap_or_else(|e| Verdict::Failed(format!("{e:#}")));
    Row {
        target: v.target.name.to_owned(),
        build: "replay from x86_64".to_owned(),
        flags: format!("{SCENE} --verify-replay"),
        backend: job.backend.to_owned(),
        final_hash: None,
        verdict,
    }
}

fn play(v: &Variant, dir: &Path, backend: &str, dump_at: Option<u64>) -> anyhow::Result<String> {
    let mut c = v.run_command()?;
    c.current_dir(dir)
        .args([SCENE, "--verify-replay"])
        .arg(recording(backend));
    if let Some(t) = dump_at {
        c.args(["--dump-at", &t.to_string()]);
    }
    output_of(&mut c, &format!("{} --verify-replay", v.label()))
}

fn judge(
    variants: &[Variant],
    host: usize,
    job: &Job,
    known: &Known,
    dir: &Path,
) -> anyhow::Result<Verdict> {
    let v = &variants[job.variant];
    let played = parse_played(&play(v, dir, job.backend, None)?)?;
    let expect_same = if job.backend == "fixed_point_16_16" {
        Some(true)
    } else {
        pinned_agrees(known, v.target.platform)
    };
    match (played, expect_same) {
        (Played::Verified(n), Some(true) | None) => Ok(Verdict::CrossingVerified(n)),
        (Played::Verified(_), Some(false)) => Ok(Verdict::Failed(
            "verified a recording whose known answers differ here from x86_64's".to_owned(),
        )),
        (Played::Diverged(t), Some(true)) => Ok(Verdict::Failed(format!(
            "x86_64's recording diverges here at tick {t}, where the runs must agree"
        ))),
        (Played::Diverged(tick), Some(false) | None) => {
            let here = desync_diff::parse(&dump_of(&play(v, dir, job.backend, Some(tick))?)?)?;
            let there = desync_diff::parse(&dump_of(&play(
                &variants[host],
                dir,
                job.backend,
                Some(tick),
            )?)?)?;
            let differences = desync_diff::compare(&there, &here);
            let field = differences
                .iter()
                .find(|d| d.contains(", field "))
                .or_else(|| differences.iter().find(|d| d.starts_with("component ")));
            match field {
                Some(f) => Ok(Verdict::CrossingReported {
                    tick,
                    field: f.clone(),
                    count: differences.len(),
                }),
                None => Ok(Verdict::Failed(format!(
                    "diverged at tick {tick}, but the two dumps name no differing component: {differences:?}"
                ))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_crossing_line_and_the_dump_parse() {
        let out = "detcheck-output 1\nbuild x\ncrossing backend=float_pinned_32 platform=i586-linux verdict=diverged:1000 recorded=0x1 replayed=0x2\ndump tick=1000 lines=2\nlaige-snapshot 1\ntick 1000\n";
        assert_eq!(parse_played(out).unwrap(), Played::Diverged(1000));
        assert_eq!(dump_of(out).unwrap(), "laige-snapshot 1\ntick 1000\n");
        let ok = "crossing backend=fixed_point_16_16 platform=s390x-linux verdict=verified:11\n";
        assert_eq!(parse_played(ok).unwrap(), Played::Verified(11));
        assert!(parse_played("crossing verdict=maybe\n").is_err());
        assert!(parse_played("run backend=x\n").is_err());
        assert!(dump_of(ok).is_err());
    }

    #[test]
    fn pinned_agreement_compares_the_quick_span_of_the_known_answers() {
        let answer = |hashes: &[(u64, u64)]| Answer {
            ticks: 100_000,
            checkpoints: hashes.to_vec(),
        };
        let mut fp = BTreeMap::new();
        fp.insert(
            "x86_64-linux".to_owned(),
            answer(&[(0, 1), (5000, 2), (10_000, 3), (15_000, 4)]),
        );
        // Equal over 0..=10 000, apart later: agrees for the quick span.
        fp.insert(
            "aarch64-linux".to_owned(),
            answer(&[(0, 1), (5000, 2), (10_000, 3), (15_000, 9)]),
        );
        fp.insert(
            "i586-linux".to_owned(),
            answer(&[(0, 1), (5000, 7), (10_000, 8)]),
        );
        let mut modes = BTreeMap::new();
        modes.insert("float_pinned_32".to_owned(), fp);
        let mut known = Known::new();
        known.insert("full".to_owned(), modes);
        assert_eq!(pinned_agrees(&known, "aarch64-linux"), Some(true));
        assert_eq!(pinned_agrees(&known, "i586-linux"), Some(false));
        assert_eq!(pinned_agrees(&known, "riscv64-linux"), None);
    }
}
