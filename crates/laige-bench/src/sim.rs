//! Bench area `sim`: the reference workload through the `GameLoop`, beside
//! the same math as a raw hecs loop and a plain `Vec` loop; the profiler's
//! cost; the loop's bookkeeping per empty frame.
//!
//! - `sim.workload.<backend>.<n>.{loop,hecs,vec}_ms`: median ms per tick of
//!   the reference workload (`laige_sim::workload`: integrate + reflect,
//!   wide-path attractor) at n = 1k, 10k, 100k, 1M entities, backend `fx`
//!   (`Fpx16_16`) or `fp` (`Fp32Pinned`). `loop`: one `GameLoop::frame()`
//!   whose synthetic clock advanced exactly one tick (so: frame bookkeeping,
//!   schedule validation, two boxed systems and hecs queries); `hecs`: the
//!   two systems' loops written directly over a `hecs::World` (the same
//!   `workload::integrate` per entity and `workload::attract_world` over
//!   the columns as the systems); `vec`: the same math over a `Vec` of
//!   structs (`integrate` per body, `attract_all` in batches). The three are
//!   measured interleaved, sample by sample, in one run.
//! - `sim.workload.<backend>.<n>.loop_vs_hecs` / `loop_vs_vec`: the
//!   median over the interleaved rounds of each round's ratio (the two
//!   ticks of a round see the same load and cache state; a ratio of two
//!   medians does not cancel the drift between rounds, which at 10k on
//!   `Fp32Pinned` — a tick near memory speed — is as large as the
//!   figure's margin). At 10k the rounds are pooled over six fresh sets of
//!   worlds (each set kept alive so the next lands elsewhere): where one
//!   set's columns fall against cache lines is fixed for a whole run and
//!   moved that run's ratio by up to ±25 %. `loop_vs_hecs.ratio_of_medians`
//!   beside it: the ratio of the medians, for comparison. `sim.workload.<n>.fx_vs_fp`: the `loop` median on
//!   `Fpx16_16` over the one on `Fp32Pinned`, in the same run.
//! - `sim.workload_passes.10k.{fx,fp}_{integrate,attract}_ms`: the two
//!   systems' passes over a hecs world of 10k entities measured apart
//!   (`workload::integrate_world`, `workload::attract_world`, each on a
//!   world of its own), both backends interleaved; `{integrate,attract}_
//!   fx_vs_fp`: the ratio of each pass, where the price of `Fpx16_16` is.
//! - `sim.profiler.overhead_pct`: one 10k-entity `Fpx16_16` loop, ticks
//!   alternating between its profiler enabled and disabled (same world,
//!   same data): the median paired difference over the median disabled
//!   tick, in %. `sim.profiler.instrumentation_ns` / `_pct`: the enabled
//!   profiler's added work per tick of that loop, measured alone, and as a
//!   share of the disabled tick.
//! - `sim.loop.empty_frame_ns`: `frame()` on the steady clock with nothing
//!   due (no tick): the clock read, `begin_frame`, the due computation and
//!   the alpha — the per-frame bookkeeping. `empty_frame_synthetic_ns`: the
//!   same on a synthetic clock (no OS clock read).

use std::hint::black_box;
use std::time::Instant;

use hecs::World as EcsWorld;
use laige_core::clock::{MonotonicClock, SteadyClock, SyntheticClock};
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_sim::workload::{self, WorkloadConfig, WorkloadParams};
use laige_sim::{GameLoop, GameLoopOptions};
use laige_sim::{Profiler, ProfilerConfig, StateHash, World};

use crate::harness::{Bench, Stats, paired_ratio};

/// Runs the area.
pub fn run(b: &mut Bench) {
    for (n, label, samples) in [
        (1_000_u32, "1k", 400),
        (10_000, "10k", 600),
        (100_000, "100k", 30),
        (1_000_000, "1m", 6),
    ] {
        if b.quick() && n > 100_000 {
            continue;
        }
        let samples = b.scaled(samples).max(3);
        let name = format!("sim.workload.fx.{label}");
        let fx = b
            .wants(&name)
            .then(|| workload_side_by_side::<Fpx16_16>(b, &name, n, samples));
        let name = format!("sim.workload.fp.{label}");
        let fp = b
            .wants(&name)
            .then(|| workload_side_by_side::<Fp32Pinned>(b, &name, n, samples));
        if let (Some(fx), Some(fp)) = (fx, fp) {
            // The price of the bit-exact backend over the float one, in
            // the same run.
            b.ratio(&format!("sim.workload.{label}.fx_vs_fp"), fx, fp);
        }
    }
    if b.wants("sim.workload_passes") {
        workload_passes(b);
    }
    if b.wants("sim.profiler") {
        profiler_overhead(b);
    }
    if b.wants("sim.loop") {
        empty_frames(b);
    }
}

/// The instant at which tick `k` is due at 60 Hz: `ceil(k × 10⁹ / 60)`.
fn due_at(k: u64) -> i64 {
    i64::try_from((k * 1_000_000_000).div_ceil(60)).unwrap_or(i64::MAX)
}

/// A loop over the reference workload whose clock the caller steps one
/// tick at a time.
struct TickingLoop<S: SimScalar> {
    game: GameLoop<SyntheticClock>,
    clock: SyntheticClock,
    k: u64,
    _backend: std::marker::PhantomData<S>,
}

impl<S: SimScalar + StateHash> TickingLoop<S> {
    fn new(config: &WorkloadConfig) -> Self {
        let mut world = World::default();
        workload::install::<S>(&mut world, config).expect("valid workload");
        let schedule = world.schedule_systems();
        let clock = SyntheticClock::new(0);
        let mut game =
            GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone())
                .expect("valid options");
        game.frame().expect("first frame");
        Self {
            game,
            clock,
            k: 0,
            _backend: std::marker::PhantomData,
        }
    }

    /// One frame with exactly one tick due.
    fn tick(&mut self) -> u64 {
        self.k += 1;
        self.clock.set_ns(due_at(self.k));
        let f = self.game.frame().expect("healthy frame");
        debug_assert_eq!(f.ticks_run, 1);
        f.tick
    }
}

/// The same two systems written directly over hecs.
fn hecs_tick<S: SimScalar>(ecs: &mut EcsWorld, p: &WorkloadParams<S>) -> usize {
    workload::integrate_world(ecs, p);
    workload::attract_world(ecs, p);
    ecs.len() as usize
}

/// One entity of the plain-`Vec` contender.
#[derive(Clone, Copy)]
struct Body<S> {
    pos: Vec2<S>,
    prev: Vec2<S>,
    vel: Vec2<S>,
}

/// The same two systems over a `Vec` (two passes, like the two systems).
fn vec_tick<S: SimScalar>(bodies: &mut [Body<S>], p: &WorkloadParams<S>) -> usize {
    for b in bodies.iter_mut() {
        workload::integrate(&mut b.pos, &mut b.prev, &mut b.vel, p);
    }
    let len = bodies.len();
    workload::attract_all(bodies.iter_mut().map(|b| (&b.pos, &mut b.vel)), p);
    len
}

/// Fresh sets of worlds the 10k figures pool their rounds over.
const LAYOUTS: usize = 6;

fn workload_side_by_side<S: SimScalar + StateHash>(
    b: &mut Bench,
    name: &str,
    n: u32,
    samples: usize,
) -> f64 {
    let config = WorkloadConfig {
        entities: n,
        ..WorkloadConfig::default()
    };
    let params = WorkloadParams::<S>::new(&config);
    // Several fresh sets of worlds at 10k (each kept alive, so the next
    // lands elsewhere in memory): a tick near memory speed depends on where
    // a world's columns fall against cache lines, which one set of worlds
    // fixes for the whole run; the rounds of every set are pooled.
    let sets = if n == 10_000 { LAYOUTS } else { 1 };
    let mut kept = Vec::with_capacity(sets);
    let mut rounds: Vec<Vec<f64>> = vec![Vec::new(); 3];
    for _ in 0..sets {
        let mut game = TickingLoop::<S>::new(&config);
        let mut ecs = EcsWorld::new();
        ecs.spawn_batch(workload::initial_state::<S>(&config));
        let mut bodies: Vec<Body<S>> = workload::initial_state::<S>(&config)
            .map(|(pos, prev, vel)| Body {
                pos: pos.0,
                prev: prev.0,
                vel: vel.0,
            })
            .collect();
        let mut via_loop = || game.tick();
        let mut via_hecs = || hecs_tick(&mut ecs, &params) as u64;
        let mut via_vec = || vec_tick(&mut bodies, &params) as u64;
        let set = b.interleaved_rounds(
            (samples / sets).max(3),
            1,
            &mut [&mut via_loop, &mut via_hecs, &mut via_vec],
        );
        for (all, one) in rounds.iter_mut().zip(set) {
            all.extend(one);
        }
        kept.push((game, ecs, bodies));
    }
    drop(kept);
    let loop_vs_hecs = paired_ratio(&rounds[0], &rounds[1]);
    let loop_vs_vec = paired_ratio(&rounds[0], &rounds[2]);
    let stats: Vec<Stats> = rounds.into_iter().map(|mut r| Stats::of(&mut r)).collect();
    let ms = |s: &Stats| s.median / 1e6;
    let (l, h, v) = (ms(&stats[0]), ms(&stats[1]), ms(&stats[2]));
    b.record(&format!("{name}.loop_ms"), l, "ms");
    b.record(&format!("{name}.hecs_ms"), h, "ms");
    b.record(&format!("{name}.vec_ms"), v, "ms");
    b.record(&format!("{name}.loop_p99_ms"), stats[0].p99 / 1e6, "ms");
    if n == 10_000 {
        b.record_distribution(
            &format!("{name}.loop_tick_ms"),
            &stats[0].samples,
            1e-6,
            "ms",
        );
    }
    b.record(&format!("{name}.loop_vs_hecs"), loop_vs_hecs, "x");
    b.record(&format!("{name}.loop_vs_vec"), loop_vs_vec, "x");
    b.ratio(&format!("{name}.loop_vs_hecs.ratio_of_medians"), l, h);
    l
}

/// `sim.workload_passes.10k`: the two systems' passes over a hecs world
/// measured apart (`integrate_world` on one world, `attract_world` on
/// another: each world drifts as that pass alone moves it), on both
/// backends, all four interleaved; the `fx_vs_fp` ratio of each pass says
/// where the price of `Fpx16_16` is.
fn workload_passes(b: &mut Bench) {
    let config = WorkloadConfig::default();
    let world = |ecs: &mut EcsWorld, fx: bool| {
        if fx {
            ecs.spawn_batch(workload::initial_state::<Fpx16_16>(&config));
        } else {
            ecs.spawn_batch(workload::initial_state::<Fp32Pinned>(&config));
        }
    };
    let mut worlds: [EcsWorld; 4] = std::array::from_fn(|_| EcsWorld::new());
    for (i, w) in worlds.iter_mut().enumerate() {
        world(w, i < 2);
    }
    let fx = WorkloadParams::<Fpx16_16>::new(&config);
    let fp = WorkloadParams::<Fp32Pinned>::new(&config);
    let [fx_i, fx_a, fp_i, fp_a] = &mut worlds;
    let mut run_fx_i = || workload::integrate_world(fx_i, &fx);
    let mut run_fx_a = || workload::attract_world(fx_a, &fx);
    let mut run_fp_i = || workload::integrate_world(fp_i, &fp);
    let mut run_fp_a = || workload::attract_world(fp_a, &fp);
    let samples = b.scaled(300).max(10);
    let stats = b.interleaved(
        samples,
        1,
        &mut [&mut run_fx_i, &mut run_fx_a, &mut run_fp_i, &mut run_fp_a],
    );
    let ms: Vec<f64> = stats.iter().map(|s| s.median / 1e6).collect();
    let name = "sim.workload_passes.10k";
    b.record(&format!("{name}.fx_integrate_ms"), ms[0], "ms");
    b.record(&format!("{name}.fx_attract_ms"), ms[1], "ms");
    b.record(&format!("{name}.fp_integrate_ms"), ms[2], "ms");
    b.record(&format!("{name}.fp_attract_ms"), ms[3], "ms");
    b.ratio(&format!("{name}.integrate_fx_vs_fp"), ms[0], ms[2]);
    b.ratio(&format!("{name}.attract_fx_vs_fp"), ms[1], ms[3]);
}

fn profiler_overhead(b: &mut Bench) {
    let config = WorkloadConfig::default();
    let mut game = TickingLoop::<Fpx16_16>::new(&config);
    game.game
        .set_profiler(Profiler::new(ProfilerConfig::default()).expect("valid profiler config"));
    // The same loop, the same world: consecutive ticks alternate between
    // the profiler on and off (order rotating per round), so data, caches
    // and background load are shared alike. The overhead is the median of
    // the per-round paired differences — robust to a noise burst hitting
    // one side of one pair — over the median disabled tick.
    let rounds = b.scaled(1_000).max(20);
    let mut timed = |enabled: bool| {
        game.game.profiler_mut().set_enabled(enabled);
        let start = Instant::now();
        black_box(game.tick());
        start.elapsed().as_nanos() as f64
    };
    for _ in 0..10 {
        timed(true);
        timed(false);
    }
    let mut enabled = Vec::with_capacity(rounds);
    let mut disabled = Vec::with_capacity(rounds);
    let mut diffs = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (on, off) = if round % 2 == 0 {
            let on = timed(true);
            (on, timed(false))
        } else {
            let off = timed(false);
            (timed(true), off)
        };
        enabled.push(on);
        disabled.push(off);
        diffs.push(on - off);
    }
    let enabled = Stats::of(&mut enabled);
    let disabled = Stats::of(&mut disabled);
    let diff = Stats::of(&mut diffs);
    b.record("sim.profiler.enabled_tick_ms", enabled.median / 1e6, "ms");
    b.record("sim.profiler.disabled_tick_ms", disabled.median / 1e6, "ms");
    b.record("sim.profiler.paired_diff_ns", diff.median, "ns");
    b.record(
        "sim.profiler.overhead_pct",
        diff.median / disabled.median * 100.0,
        "%",
    );
    let recorded = game.game.profiler_mut().tick_summary().recorded;
    black_box(recorded);

    // The instrumentation alone, for context: what an enabled profiler adds
    // to a tick of this loop (one tick timing, two system timings — each a
    // steady-clock read — and three O(1) ring writes).
    const OPS: u64 = 10_000;
    let mut p = Profiler::new(ProfilerConfig::default()).expect("valid profiler config");
    let stats = b.measure(b.scaled(200), OPS, || {
        for _ in 0..OPS {
            let t0 = SteadyClock.now_ns();
            let t1 = SteadyClock.now_ns();
            p.record_system(0, workload::INTEGRATE_SYSTEM, black_box((t1 - t0) as u64));
            let t2 = SteadyClock.now_ns();
            p.record_system(1, workload::ATTRACT_SYSTEM, black_box((t2 - t1) as u64));
            p.record_tick(black_box((SteadyClock.now_ns() - t0) as u64));
        }
        p.untracked_system_samples()
    });
    b.record("sim.profiler.instrumentation_ns", stats.median, "ns");
    // The same as a share of the tick: a noise-free upper view of the
    // paired figure above (which a shared machine's jitter can swamp).
    b.record(
        "sim.profiler.instrumentation_pct",
        stats.median / disabled.median * 100.0,
        "%",
    );
}

fn empty_frames(b: &mut Bench) {
    const OPS: u64 = 10_000;
    let samples = b.scaled(300);
    let world = World::default();
    let schedule = world.schedule_systems();
    let mut steady =
        GameLoop::new(world, schedule, GameLoopOptions::default()).expect("valid options");
    steady.frame().expect("first frame");
    let world = World::default();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut synthetic =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock).expect("valid");
    synthetic.frame().expect("first frame");
    // Frames far faster than the tick rate: nothing is due in most of them
    // (a 10k-frame sample spans < 1 ms of steady time ⇒ at most one tick of
    // an empty schedule sneaks in per sample).
    let mut on_steady = || {
        let mut ticks = 0_u64;
        for _ in 0..OPS {
            ticks += u64::from(steady.frame().expect("frame").ticks_run);
        }
        ticks
    };
    let mut on_synthetic = || {
        let mut ticks = 0_u64;
        for _ in 0..OPS {
            ticks += u64::from(synthetic.frame().expect("frame").ticks_run);
        }
        ticks
    };
    let stats = b.interleaved(samples, OPS, &mut [&mut on_steady, &mut on_synthetic]);
    b.record_stats("sim.loop.empty_frame", &stats[0], "ns");
    b.record_stats("sim.loop.empty_frame_synthetic", &stats[1], "ns");
}
