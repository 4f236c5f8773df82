//! The tick path allocates nothing (debug builds check every tick).
//!
//! This binary installs the counting allocator, so the loop's per-tick
//! allocation window is live.

use laige_core::ErrorCode;
use laige_core::alloc_watch::{self, CountingAlloc};
use laige_core::clock::SyntheticClock;
use laige_core::diag::capture_events;
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar};
use laige_sim::workload::{self, WorkloadConfig};
use laige_sim::{AllocCheck, GameLoop, GameLoopOptions, OnTick};
use laige_sim::{Profiler, ProfilerConfig, StateHash, World, events};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

#[derive(Clone, Copy, StateHash)]
struct P(i32, i32);
#[derive(Clone, Copy, StateHash)]
struct V(i32, i32);

fn integer_world(n: i32) -> World {
    let mut w = World::default();
    w.register_hashed::<P>().unwrap();
    w.register_hashed::<V>().unwrap();
    for i in 0..n {
        w.spawn((P(i, -i), V(1 + i % 5, -(i % 3))));
    }
    w.register_system("integrate", 0, |ctx| {
        for (p, v) in ctx.query_mut::<(&mut P, &V)>() {
            p.0 = p.0.wrapping_add(v.0);
            p.1 = p.1.wrapping_add(v.1);
        }
        Ok(())
    })
    .unwrap();
    w
}

fn game(world: World, check: AllocCheck) -> (GameLoop<SyntheticClock>, SyntheticClock) {
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let options = GameLoopOptions {
        alloc_check: check,
        ..GameLoopOptions::default()
    };
    (
        GameLoop::with_clock(world, schedule, options, clock.clone()).unwrap(),
        clock,
    )
}

#[test]
fn the_counting_allocator_is_installed() {
    assert!(alloc_watch::is_installed());
}

/// The spec's HealthyFramesAllocateNothing: the 10k-entity reference
/// workload through the loop, 300 catch-up frames (600 ticks, no drops),
/// with an `on_tick` hook and an enabled profiler attached —
/// counted from before the loop's very first frame.
fn reference_workload_frames_allocate_nothing<S: SimScalar + StateHash>() {
    let mut world = World::default();
    workload::install::<S>(&mut world, &WorkloadConfig::default()).unwrap();
    let (mut g, clock) = game(world, AllocCheck::Panic);
    g.set_profiler(Profiler::new(ProfilerConfig::default()).unwrap());
    let mut seen = 0_u64;
    let ((), counts) = alloc_watch::count_allocs(|| {
        let mut hook = OnTick(|_: &World, t| seen = t);
        g.frame_with(&mut hook).unwrap();
        for _ in 0..300 {
            clock.advance_ns(33_333_334);
            let f = g.frame_with(&mut hook).unwrap();
            assert_eq!((f.ticks_run, f.dropped_ticks), (2, 0));
        }
    });
    assert_eq!(g.current_tick(), 600);
    assert_eq!(seen, 600);
    assert_eq!(g.world().len(), 10_000);
    assert_eq!(g.profiler_mut().tick_summary().recorded, 600);
    assert_eq!(
        counts.allocations(),
        0,
        "first site: {:?}",
        counts.first_label
    );
}

#[test]
fn reference_workload_frames_allocate_nothing_fixed() {
    reference_workload_frames_allocate_nothing::<Fpx16_16>();
}

#[test]
fn reference_workload_frames_allocate_nothing_pinned() {
    reference_workload_frames_allocate_nothing::<Fp32Pinned>();
}

#[test]
fn healthy_catch_up_frames_allocate_nothing() {
    let (mut g, clock) = game(integer_world(10_000), AllocCheck::Panic);
    g.set_profiler(Profiler::new(ProfilerConfig::default()).unwrap());
    let mut seen = 0_u64;
    g.frame().unwrap();
    let ((), counts) = alloc_watch::count_allocs(|| {
        // 300 frames at 30 Hz against a 60 Hz tick: 2 ticks per frame.
        for _ in 0..300 {
            clock.advance_ns(33_333_334);
            let f = g
                .frame_with(&mut OnTick(|_: &laige_sim::World, t| seen = t))
                .unwrap();
            assert_eq!(f.ticks_run, 2);
        }
    });
    assert_eq!(g.current_tick(), 600);
    assert_eq!(seen, 600);
    assert_eq!(g.stats().dropped_ticks, 0);
    assert_eq!(
        counts.allocations(),
        0,
        "first site: {:?}",
        counts.first_label
    );
}

fn world_with_allocating_system() -> World {
    let mut w = integer_world(16);
    let mut scratch: Vec<u64> = Vec::new();
    w.register_system("scratch_pusher", 5, move |ctx| {
        if ctx.tick() >= 2 {
            scratch.push(ctx.tick()); // grows: allocates on some ticks
            scratch.shrink_to_fit();
        }
        Ok(())
    })
    .unwrap();
    w
}

/// One test for everything that emits `alloc/sim_tick_allocation`: the
/// rate limiter is process-global, so parallel tests would suppress each
/// other's events.
#[test]
fn allocating_ticks_are_caught_and_named() {
    an_allocating_system_fails_the_debug_assertion_and_is_named();
    the_error_mode_returns_failed_naming_the_system();
    an_allocating_hook_is_named_on_tick();
    the_very_first_tick_is_checked();
}

fn the_very_first_tick_is_checked() {
    let mut w = integer_world(8);
    w.register_system("boxes_every_tick", 9, |ctx| {
        let v = vec![ctx.tick(); 4];
        std::hint::black_box(v);
        Ok(())
    })
    .unwrap();
    let (mut g, clock) = game(w, AllocCheck::Error);
    g.frame().unwrap();
    clock.advance_ns(16_666_667);
    let err = g.frame().unwrap_err();
    assert_eq!(err.value(), Some("boxes_every_tick"));
    assert_eq!(err.detail(), Some("tick 1 allocated 1 time(s)"));
}

fn an_allocating_system_fails_the_debug_assertion_and_is_named() {
    let (mut g, clock) = game(world_with_allocating_system(), AllocCheck::Panic);
    g.frame().unwrap();
    clock.advance_ns(2 * 16_666_667);
    g.frame().unwrap(); // ticks 0 and 1: clean
    clock.advance_ns(16_666_667);
    let (outcome, captured) =
        capture_events(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| g.frame())));
    let payload = outcome.expect_err("the debug assertion fires");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(message.contains("zero-allocation rule broken"), "{message}");
    assert!(message.contains("scratch_pusher"), "{message}");
    let event = captured
        .iter()
        .find(|e| e.is(events::SIM_TICK_ALLOCATION))
        .expect("alloc/sim_tick_allocation emitted");
    assert_eq!(event.field("site"), Some("scratch_pusher"));
    assert_eq!(event.field("tick"), Some("3"));
    assert_eq!(event.severity(), laige_core::diag::Severity::Error);
}

fn the_error_mode_returns_failed_naming_the_system() {
    let (mut g, clock) = game(world_with_allocating_system(), AllocCheck::Error);
    g.frame().unwrap();
    clock.advance_ns(2 * 16_666_667);
    g.frame().unwrap();
    clock.advance_ns(16_666_667);
    let err = g.frame().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Failed);
    assert_eq!(err.id(), events::SIM_TICK_ALLOCATION);
    assert_eq!(err.value(), Some("scratch_pusher"));
}

#[test]
fn the_off_mode_does_not_check() {
    let (mut g, clock) = game(world_with_allocating_system(), AllocCheck::Off);
    g.frame().unwrap();
    clock.advance_ns(5 * 16_666_667);
    assert_eq!(g.frame().unwrap().ticks_run, 5);
}

fn an_allocating_hook_is_named_on_tick() {
    let (mut g, clock) = game(integer_world(4), AllocCheck::Error);
    g.frame().unwrap();
    clock.advance_ns(16_666_667);
    let mut log: Vec<u64> = Vec::new();
    let err = g
        .frame_with(&mut OnTick(|_: &World, t| log.push(t)))
        .unwrap_err();
    assert_eq!(err.value(), Some("on_tick"));
}

#[derive(Clone, Copy, Default, StateHash)]
struct Score(u64);

/// Systems that read and write resources (a hashed score, the rng), and
/// the state hash over them every tick, allocate nothing.
#[test]
fn resources_on_the_tick_path_allocate_nothing() {
    let mut world = integer_world(256);
    world.insert_hashed_resource("score", Score(0)).unwrap();
    world
        .insert_hashed_resource("rng", laige_sim::SimRng::new(3))
        .unwrap();
    world
        .register_system("score", 10, |ctx| {
            let roll = ctx.resource_mut::<laige_sim::SimRng>()?.next_u64() & 1;
            ctx.resource_mut::<Score>()?.0 += roll;
            Ok(())
        })
        .unwrap();
    let (mut g, clock) = game(world, AllocCheck::Panic);
    g.frame().unwrap();
    // The hash's scratch grows once, to the entity count.
    let mut hashes = g.world().state_hash();
    let ((), counts) = alloc_watch::count_allocs(|| {
        let mut hook = OnTick(|w: &World, _| hashes ^= w.state_hash());
        for _ in 0..120 {
            clock.advance_ns(16_666_667);
            g.frame_with(&mut hook).unwrap();
        }
    });
    assert_eq!(g.current_tick(), 120);
    assert!(g.world().resource::<Score>().unwrap().0 > 0);
    assert_ne!(hashes, 0);
    assert_eq!(
        counts.allocations(),
        0,
        "first site: {:?}",
        counts.first_label
    );
}
