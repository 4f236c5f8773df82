//! SIGINT, SIGTERM and SIGHUP sent to a real `laige-demo --record` at 50
//! random instants spread over its whole life (process start, setup, the
//! running loop, the shutdown, the report): every outcome is one of the
//! documented ones, and every recording left behind is a valid replay.
//!
//! The instants are stratified: 1.25 × the run's measured lifetime (runs in
//! parallel take longer than the lone calibration run) is cut into 50
//! equal slots and each signal lands at a random point of its own slot, so
//! the last ones reach the shutdown and the exit; 4 more land in the
//! process's first 4 ms (exec, the loader, before `main`). The seed is
//! printed; `LAIGE_FAULT_SEED` replays one.

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use laige_engine::sim::replay::Replay;

use crate::{DEMO, Scratch, kill, wait_with_output};

/// Stratified signals over the lifetime; each run gets one.
const INSTANTS: usize = 50;
/// Extra signals within the first milliseconds.
const EARLY: usize = 4;
/// Frames a run lasts (paced at 60 Hz: half a second of running loop).
const FRAMES: &str = "30";
const ENTITIES: &str = "300";
/// Runs at once (each is mostly sleeping in its frame pacing).
const PARALLEL: usize = 5;

fn demo(record: &Path) -> Command {
    let mut c = Command::new(DEMO);
    c.args([
        "--frames",
        FRAMES,
        "--entities",
        ENTITIES,
        "--quiet",
        "--record",
        record.to_str().unwrap(),
    ])
    .env("RUST_LOG", "info")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c
}

/// xorshift64*: the test's only randomness, from a printed seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }
}

/// What one signalled run did.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Killed by the signal's default action: it arrived before `main`
    /// installed the handler (the process had created nothing).
    BeforeHandler,
    /// Ended through the ordered shutdown with 128 + the signal.
    Interrupted { ticks: u64 },
    /// The run had already reached its limit (the signal arrived during
    /// the shutdown or after it): completed, code 0.
    AfterTheEnd,
}

fn field<'a>(out: &'a str, name: &str) -> Option<&'a str> {
    out.lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
}

/// Checks one run's exit, report, events and recording against the
/// documented outcomes.
fn check(
    signal: i32,
    name: &str,
    status: std::process::ExitStatus,
    out: &str,
    err: &str,
    record: &Path,
) -> Result<Outcome, String> {
    let ctx = || format!("status {status:?}\n--- stdout\n{out}\n--- stderr\n{err}");
    if status.signal() == Some(signal) {
        // Nothing ran yet: no line printed, no file made.
        if !out.is_empty() || record.exists() {
            return Err(format!("killed by {name} after it had started: {}", ctx()));
        }
        return Ok(Outcome::BeforeHandler);
    }
    let code = status
        .code()
        .ok_or_else(|| format!("no exit code: {}", ctx()))?;
    let exit = field(out, "exit:").ok_or_else(|| format!("no report: {}", ctx()))?;
    let outcome = if code == 128 + signal {
        if exit != format!("interrupted by {name} (code {code})") {
            return Err(format!("report says `{exit}`: {}", ctx()));
        }
        let ticks = field(out, "ticks:")
            .and_then(|t| t.split(' ').next())
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| format!("no ticks line: {}", ctx()))?;
        Outcome::Interrupted { ticks }
    } else if code == 0 {
        // Every frame of the limit ran (a loaded machine may drop ticks
        // under the catch-up bound, never frames).
        if exit != "completed (code 0)"
            || field(out, "frames:").is_none_or(|t| !t.starts_with(&format!("{FRAMES} ")))
        {
            return Err(format!("exit 0 without the whole run: {}", ctx()));
        }
        Outcome::AfterTheEnd
    } else {
        return Err(format!("exit code {code}: {}", ctx()));
    };
    // The ordered shutdown, in order, once.
    let mut at = 0;
    for marker in ["event=shutdown", "event=profiler_summary", "event=stopped"] {
        at += err[at..]
            .find(marker)
            .ok_or_else(|| format!("`{marker}` missing or out of order: {}", ctx()))?;
    }
    // The recording is complete and holds what the report says.
    let replay = Replay::read(record).map_err(|e| format!("recording invalid: {e}: {}", ctx()))?;
    let recorded = format!("laige-demo: recorded {} ticks to", replay.ticks());
    if !replay.is_complete() || !out.contains(&recorded) {
        return Err(format!(
            "recording of {} ticks not reported: {}",
            replay.ticks(),
            ctx()
        ));
    }
    if let Outcome::Interrupted { ticks } = outcome
        && ticks != replay.ticks()
    {
        return Err(format!(
            "report {ticks} ticks, recording {}: {}",
            replay.ticks(),
            ctx()
        ));
    }
    Ok(outcome)
}

#[test]
fn stop_signals_at_50_instants_end_in_order_with_a_valid_recording() {
    let dir = Scratch::new("signals");
    // The lifetime to spread the instants over: one run without a signal.
    let calibration = dir.0.join("calibration.lrp");
    let start = Instant::now();
    let (status, out, err) =
        wait_with_output(demo(&calibration).spawn().unwrap(), Duration::from_secs(60));
    let lifetime = start.elapsed();
    assert_eq!(status.code(), Some(0), "{out}\n{err}");
    let seed = std::env::var("LAIGE_FAULT_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            now.as_secs() << 32 ^ u64::from(now.subsec_nanos()) ^ u64::from(std::process::id())
        });
    let mut rng = Rng(seed | 1);
    let slot_us = u64::try_from(lifetime.as_micros()).unwrap() * 5 / 4 / INSTANTS as u64;
    let signals = [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ];
    let plan: Vec<(usize, Duration, i32, &str)> = (0..INSTANTS + EARLY)
        .map(|i| {
            let at = Duration::from_micros(match i.checked_sub(EARLY) {
                None => rng.below(1_000 * (i as u64 + 1)),
                Some(k) => k as u64 * slot_us + rng.below(slot_us),
            });
            let (sig, name) = signals[i % signals.len()];
            (i, at, sig, name)
        })
        .collect();
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for lane in 0..PARALLEL {
            let (plan, results, dir) = (&plan, &results, &dir);
            scope.spawn(move || {
                for &(i, at, sig, name) in plan.iter().skip(lane).step_by(PARALLEL) {
                    let record = dir.0.join(format!("run{i}.lrp"));
                    let spawned = Instant::now();
                    let child = demo(&record).spawn().unwrap();
                    std::thread::sleep(at.saturating_sub(spawned.elapsed()));
                    kill(&child, sig);
                    let (status, out, err) = wait_with_output(child, Duration::from_secs(30));
                    let outcome = check(sig, name, status, &out, &err, &record);
                    results.lock().unwrap().push((i, at, name, outcome, record));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(i, at, name, outcome, _)| {
            outcome
                .as_ref()
                .err()
                .map(|e| format!("run {i}: {name} at {at:?}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "seed {seed}:\n{}",
        failures.join("\n\n")
    );
    let count =
        |f: fn(&Outcome) -> bool| results.iter().filter(|r| r.3.as_ref().is_ok_and(f)).count();
    let before = count(|o| *o == Outcome::BeforeHandler);
    let interrupted = count(|o| matches!(o, Outcome::Interrupted { .. }));
    let after = count(|o| *o == Outcome::AfterTheEnd);
    println!(
        "signals: seed {seed}, {EARLY} + {INSTANTS} instants over 1.25 x {lifetime:?}: {before} before the handler, {interrupted} ended in order (128 + signal), {after} after the run's end"
    );
    // The instants cover the running loop: most signals end the run.
    assert!(
        interrupted >= INSTANTS / 2,
        "only {interrupted} of {INSTANTS} runs were interrupted"
    );
    // A few interrupted recordings replay with every hash matching.
    let mut replayed = 0;
    for (_, _, _, outcome, record) in &results {
        if let Ok(Outcome::Interrupted { ticks }) = outcome
            && *ticks >= 2
            && replayed < 3
        {
            let out = Command::new(DEMO)
                .args([
                    "--replay",
                    record.to_str().unwrap(),
                    "--entities",
                    ENTITIES,
                    "--quiet",
                ])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{text}");
            assert!(
                text.contains(&format!("replay verified: {ticks} ticks")),
                "{text}"
            );
            replayed += 1;
        }
    }
    assert!(
        replayed > 0,
        "no interrupted recording long enough to replay"
    );
}
