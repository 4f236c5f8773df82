//! Bench area `replay`: recordings with keyframes and seeking in them, on
//! the 10k-entity demo game (`laige-demo`'s `Demo`, its headless scripted
//! session: a pointer move every 6 ticks, two bursts of 1000 sprites and a
//! despawn, so 11 000 sprites after 3 s) on `Fpx16_16`.
//!
//! - The recording: the demo run in-process through the engine
//!   (`EngineBuilder::record`, unpaced, no renderer) for `RECORD_TICKS`
//!   ticks (quick mode: 6 000) with the default keyframe interval
//!   (`laige_engine::DEFAULT_KEYFRAME_INTERVAL`, 64) and a state hash
//!   after every tick. `replay.record.fx.10k.wall_s` is how long that took.
//! - `replay.seek.fx.10k.{p50,p99,max}_ms`: `ReplayPlayback::seek` from the
//!   previous target to the next of `SEEKS` random targets (a scrubbing
//!   user: random tick to random tick) — one keyframe decoded and loaded
//!   (or the player's own state, when nearer), then up to 63 ticks
//!   re-simulated, each recorded hash compared. The distribution is kept.
//!   `.cpu_{p50,p99,max}_ms`: the same seeks in the thread's own on-CPU
//!   time (`/proc/thread-self/schedstat`, read outside the timed span),
//!   beside the wall time: on a shared machine a seek's wall time also
//!   holds the time other processes ran on its core, which its CPU time
//!   does not (Linux only; absent elsewhere).
//! - `replay.interval.k<K>.*` (K = 32, 128, 256): the same recording and
//!   seek figures for other keyframe intervals, on the quick recording's
//!   6 000 ticks (the interval's trade-off: seek time against size).
//!   Every seek must land on the recorded hash (checked, not timed).
//! - `replay.keyframe.fx.10k.write_us`: one keyframe as the recording
//!   writes it (the world saved into a ring slot, encoded in the snapshot
//!   byte format, one record written through a `BufWriter` to a file),
//!   median; `.per_tick_us` that over the interval (its cost spread over
//!   the ticks it covers) and `.pct_of_tick` that against the recorded
//!   tick (`replay.record.fx.10k.tick_us`: the recording's wall time over
//!   its ticks — simulation, state hash, input and hash records).
//! - `replay.bytes_per_minute.fx.10k.{with,without}_keyframes_mb`: the
//!   recording's size per 3 600 ticks (a minute at 60 Hz), MB (10⁶ bytes),
//!   with its keyframe records and without them (the same file less its
//!   keyframe records: what a recording with interval 0 writes), and
//!   `.keyframe_bytes` one keyframe's size.
//!
//! A seek's cost does not depend on the recording's length (a keyframe is
//! found by a binary search of the index and at most one interval of ticks
//! is re-simulated), so the quick run's shorter recording measures the
//! same seek.

#![allow(
    clippy::cast_precision_loss,
    reason = "figures in a report: counts and sizes to f64"
)]

use std::time::Instant;

use laige_demo::{Demo, replay_identity};
use laige_engine::sim::replay::{Replay, ReplayHeader, ReplayRecorder};
use laige_engine::sim::snapshot::SnapshotRing;
use laige_engine::sim::{SimRng, World};
use laige_engine::{
    DEFAULT_KEYFRAME_INTERVAL, Engine, EngineConfig, EngineOptions, HeadlessRender, MathBackend,
    Pacing, RunLimit,
};

use crate::harness::{Bench, Stats, ThreadCpu};

/// Ticks of the full run's recording: 100 000 (27.8 minutes at 60 Hz).
pub const RECORD_TICKS: u64 = 100_000;
/// Ticks of the quick run's recording.
pub const QUICK_RECORD_TICKS: u64 = 6_000;
/// Random seek targets of the full run (quick: 30).
pub const SEEKS: usize = 300;
/// Sprites of the demo.
const ENTITIES: u32 = 10_000;

/// Runs the area.
pub fn run(b: &mut Bench) {
    let figures = [
        "replay.record.fx.10k",
        "replay.seek.fx.10k",
        "replay.keyframe.fx.10k",
        "replay.bytes_per_minute.fx.10k",
    ];
    let main = figures.iter().any(|f| b.wants(f));
    if !main && !b.wants("replay.interval") {
        return;
    }
    let ticks = if b.quick() {
        QUICK_RECORD_TICKS
    } else {
        RECORD_TICKS
    };
    let dir = std::env::temp_dir().join(format!("laige-bench-replay-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("replay: skipped: {e}");
        return;
    }
    let path = dir.join("demo-10k.lrp");
    if main && let Err(e) = measure(b, &path, ticks, DEFAULT_KEYFRAME_INTERVAL, "replay") {
        eprintln!("replay: failed: {e}");
    }
    // The interval's trade-off: seek time against size, on the quick
    // recording's length (a seek's cost does not depend on it).
    if b.wants("replay.interval") {
        for k in INTERVALS {
            let name = format!("replay.interval.k{k}");
            if let Err(e) = measure(b, &path, QUICK_RECORD_TICKS, k, &name) {
                eprintln!("replay: {name} failed: {e}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The keyframe intervals of the trade-off figures
/// (`replay.interval.k<K>.*`).
pub const INTERVALS: [u32; 3] = [32, 128, 256];

fn builder(keyframe_interval: u32) -> laige_engine::EngineBuilder<Demo> {
    let mut config = EngineConfig::default();
    config.replay.keyframe_interval = keyframe_interval;
    Engine::builder()
        .game(Demo {
            entities: ENTITIES,
            progress_every_frames: 0,
            ..Demo::default()
        })
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            headless_render: HeadlessRender::Off,
            sprite_capacity: ENTITIES as usize + 4_096,
            ..EngineOptions::default()
        })
        .config(config)
        .replay_identity(replay_identity(ENTITIES))
}

/// Records `ticks` ticks with a keyframe every `interval` and measures
/// under `area` (`replay` for the default interval, `replay.interval.kK`
/// for the trade-off rows).
fn measure(
    b: &mut Bench,
    path: &std::path::Path,
    ticks: u64,
    interval: u32,
    area: &str,
) -> laige_engine::Result<()> {
    let full = area == "replay";
    // The recording.
    let tick_rate = EngineConfig::default().game_loop.tick_rate_hz;
    let seconds = ticks.div_ceil(u64::from(tick_rate)) + 1;
    eprintln!("replay: recording {ticks} ticks of the 10k demo, a keyframe every {interval}");
    let started = Instant::now();
    let report = builder(interval)
        .scripted_input(laige_demo::headless_script(seconds, tick_rate))
        .record(path)
        .build()?
        .run_headless(RunLimit::Ticks(ticks))?;
    let wall = started.elapsed().as_secs_f64();
    if report.exit_code() != 0 {
        eprintln!("replay: the recording run failed: {}", report.exit);
        return Ok(());
    }
    b.record(&format!("{area}.record.fx.10k.wall_s"), wall, "s");
    b.record(
        &format!("{area}.record.fx.10k.ticks"),
        ticks as f64,
        "ticks",
    );
    let tick_us = wall * 1e6 / ticks as f64;
    b.record(&format!("{area}.record.fx.10k.tick_us"), tick_us, "us");

    // Its size, with and without its keyframe records.
    let file_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let replay = Replay::read(path)?;
    let keyframes = replay.keyframes().len() as u64;
    let keyframe_payload: u64 = replay.keyframes().map(|k| k.bytes.len() as u64).sum();
    // A keyframe record is its payload plus 17 bytes of framing.
    let without = file_bytes - keyframe_payload - 17 * keyframes;
    let per_minute = |bytes: u64| bytes as f64 / ticks as f64 * 3_600.0 / 1e6;
    b.record(
        &format!("{area}.bytes_per_minute.fx.10k.with_keyframes_mb"),
        per_minute(file_bytes),
        "MB",
    );
    b.record(
        &format!("{area}.bytes_per_minute.fx.10k.without_keyframes_mb"),
        per_minute(without),
        "MB",
    );
    b.record(
        &format!("{area}.bytes_per_minute.fx.10k.keyframe_bytes"),
        keyframe_payload as f64 / keyframes.max(1) as f64,
        "B",
    );
    b.record(
        &format!("{area}.record.fx.10k.file_mb"),
        file_bytes as f64 / 1e6,
        "MB",
    );
    drop(replay);

    // Seeking: random tick to random tick.
    let mut playback = builder(interval).build()?.replay_player(path)?;
    let recorded = Replay::read(path)?;
    let seeks = if b.quick() || !full { 30 } else { SEEKS };
    let mut rng = SimRng::new(0x5eec);
    let mut ms = Vec::with_capacity(seeks);
    let mut cpu_ms = Vec::with_capacity(seeks);
    let cpu = ThreadCpu::open();
    let mut resimulated = 0_u64;
    for _ in 0..seeks {
        let target = rng.next_u64() % (ticks + 1);
        let cpu0 = cpu.fresh_ns();
        let started = Instant::now();
        let seek = playback.seek(target)?;
        ms.push(started.elapsed().as_secs_f64() * 1e3);
        if let (Some(a), Some(c)) = (cpu0, cpu.fresh_ns()) {
            cpu_ms.push(c.saturating_sub(a) as f64 / 1e6);
        }
        resimulated += seek.resimulated;
        if seek.divergence.is_some() || Some(playback.state_hash()) != recorded.hash_at(target) {
            eprintln!("replay: a seek did not reach the recorded state: {seek}");
            return Ok(());
        }
    }
    let stats = Stats::of(&mut ms);
    b.record(&format!("{area}.seek.fx.10k.p50_ms"), stats.median, "ms");
    b.record(&format!("{area}.seek.fx.10k.p99_ms"), stats.p99, "ms");
    b.record(&format!("{area}.seek.fx.10k.max_ms"), stats.max, "ms");
    if cpu_ms.len() == seeks {
        let cpu_stats = Stats::of(&mut cpu_ms);
        b.record(
            &format!("{area}.seek.fx.10k.cpu_p50_ms"),
            cpu_stats.median,
            "ms",
        );
        b.record(
            &format!("{area}.seek.fx.10k.cpu_p99_ms"),
            cpu_stats.p99,
            "ms",
        );
        b.record(
            &format!("{area}.seek.fx.10k.cpu_max_ms"),
            cpu_stats.max,
            "ms",
        );
    }
    b.record(
        &format!("{area}.seek.fx.10k.mean_resimulated_ticks"),
        resimulated as f64 / seeks as f64,
        "ticks",
    );
    if !full {
        return Ok(());
    }
    b.record_distribution("replay.seek.fx.10k", &stats.samples, 1.0, "ms");

    // One keyframe as the recording writes it, on the recording's last
    // world (11 000 sprites), into a file through a BufWriter.
    let world = playback.world();
    keyframe_write(b, world, path, tick_us)?;
    Ok(())
}

fn keyframe_write(
    b: &mut Bench,
    world: &World,
    path: &std::path::Path,
    tick_us: f64,
) -> laige_engine::Result<()> {
    let samples = b.scaled(100).max(5);
    let file = path.with_extension("keyframes");
    let mut header = ReplayHeader::new(MathBackend::FixedPoint16_16, 0, 0);
    header.keyframe_interval = 1;
    let mut rec = ReplayRecorder::create(&file, header)?;
    let mut ring = SnapshotRing::new(world, 1)?;
    let mut buf = Vec::new();
    let mut tick = 0_u64;
    let stats = b.measure(samples, 1, || {
        let done = ring
            .save(0, world)
            .and_then(|()| {
                buf.clear();
                ring.encode(0, world, &mut buf)
            })
            .and_then(|()| rec.record_keyframe(tick, &buf))
            .and_then(|()| rec.record_input_bytes(tick, &[]));
        tick += 1;
        done.is_ok()
    });
    let _ = std::fs::remove_file(&file);
    let interval = f64::from(DEFAULT_KEYFRAME_INTERVAL);
    let write_us = stats.median / 1e3;
    b.record("replay.keyframe.fx.10k.write_us", write_us, "us");
    b.record(
        "replay.keyframe.fx.10k.per_tick_us",
        write_us / interval,
        "us",
    );
    b.record(
        "replay.keyframe.fx.10k.pct_of_tick",
        write_us / interval / tick_us * 100.0,
        "%",
    );
    Ok(())
}
