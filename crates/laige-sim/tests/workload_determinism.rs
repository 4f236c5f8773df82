//! The reference workload is deterministic: same config and clock → same
//! state hash, on either backend; different seeds diverge.

use laige_core::clock::SyntheticClock;
use laige_core::{Fp32Pinned, Fpx16_16, SimScalar};
use laige_sim::workload::{self, Position, Velocity, WorkloadConfig};
use laige_sim::{GameLoop, GameLoopOptions};
use laige_sim::{StateHash, World};

fn run<S: SimScalar + StateHash>(config: &WorkloadConfig, frames: &[i64]) -> (u64, Vec<u64>) {
    let mut world = World::default();
    workload::install::<S>(&mut world, config).unwrap();
    let schedule = world.schedule_systems();
    let clock = SyntheticClock::new(0);
    let mut g =
        GameLoop::with_clock(world, schedule, GameLoopOptions::default(), clock.clone()).unwrap();
    g.frame().unwrap();
    let mut hashes = Vec::new();
    for step in frames {
        clock.advance_ns(*step);
        g.frame().unwrap();
        hashes.push(g.world().state_hash());
    }
    (g.current_tick(), hashes)
}

fn config() -> WorkloadConfig {
    WorkloadConfig {
        entities: 500,
        ..WorkloadConfig::default()
    }
}

#[test]
fn same_config_same_hashes_on_both_backends() {
    let frames: Vec<i64> = (0..120)
        .map(|i| 9_000_000 + (i * 7_919_311) % 30_000_000)
        .collect();
    let a = run::<Fpx16_16>(&config(), &frames);
    let b = run::<Fpx16_16>(&config(), &frames);
    assert_eq!(a, b);
    let p1 = run::<Fp32Pinned>(&config(), &frames);
    let p2 = run::<Fp32Pinned>(&config(), &frames);
    assert_eq!(p1, p2);
    assert_eq!(a.0, p1.0, "the tick count does not depend on the backend");
    assert_ne!(a.1, p1.1, "different backends are different states");
}

#[test]
fn the_frame_cadence_does_not_change_the_state() {
    // 60 ticks in one-tick frames or in 4-tick frames: same final state.
    let fine = vec![16_666_667_i64; 60];
    let mut coarse = vec![66_666_668_i64; 15];
    coarse.push(0);
    let a = run::<Fpx16_16>(&config(), &fine);
    let b = run::<Fpx16_16>(&config(), &coarse);
    assert_eq!(a.0, 60);
    assert_eq!(b.0, 60);
    assert_eq!(a.1.last(), b.1.last());
}

#[test]
fn seeds_diverge_and_entities_stay_in_bounds() {
    let frames = vec![16_666_667_i64; 600];
    let a = run::<Fpx16_16>(&config(), &frames);
    let b = run::<Fpx16_16>(
        &WorkloadConfig {
            seed: 99,
            ..config()
        },
        &frames,
    );
    assert_ne!(a.1.last(), b.1.last());

    let mut world = World::default();
    workload::install::<Fpx16_16>(&mut world, &config()).unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..3_000 {
        world.run_systems(&schedule).unwrap();
    }
    let bound = Fpx16_16::from_i32(config().half_extent);
    let mut moving = 0;
    for (p, v) in world
        .ecs()
        .query::<(&Position<Fpx16_16>, &Velocity<Fpx16_16>)>()
        .iter()
    {
        assert!(p.0.x.abs() <= bound && p.0.y.abs() <= bound, "{p:?}");
        if v.0 != laige_core::Vec2::ZERO {
            moving += 1;
        }
    }
    assert!(moving > 400);
}
