//! Sync test sessions: the demo workload (500 entities: a debug build runs
//! 8 simulations per tick) re-simulated every tick with
//! check distance 7 for 600 ticks agrees on both backends; a system that
//! reads a process-global counter is caught within a few ticks, named down
//! to the component, the entity and the field it writes.

mod support;

use std::sync::atomic::{AtomicI32, Ordering};

use laige_core::math::BackendVisitor;
use laige_core::{Fpx16_16, MathBackend, SimScalar};
use laige_net::{Advance, EXIT_DESYNC, NetConfig, NetEnd, NetSession};
use laige_sim::StateHash;
use support::{Avatar, BumpLog, Bumps, Steer, enable_bumps, game, script_input};

fn sync_test<S: SimScalar + StateHash>(ticks: u64) -> NetSession<Steer> {
    let world = game::<S>(500, 2);
    let config = NetConfig {
        players: 2,
        max_prediction: 8,
        ..NetConfig::default()
    };
    let mut session = NetSession::<Steer>::sync_test(world, config, 7).unwrap();
    while session.world().tick() < ticks {
        let tick = session.world().tick();
        script_input(session.world_mut(), 0, tick);
        match session.advance().unwrap() {
            Advance::Ticked => {}
            other => panic!("tick {tick}: {other:?} {:?}", session.end()),
        }
    }
    session
}

/// The one backend dispatch: the same test for each backend.
struct SyncTest600;

impl<S: SimScalar + StateHash> BackendVisitor<S> for SyncTest600 {
    type Output = (u64, u64);
    fn visit(self) -> (u64, u64) {
        let session = sync_test::<S>(600);
        assert!(session.end().is_none(), "{:?}", session.end());
        let stats = session.stats();
        (stats.rollbacks, session.world().state_hash())
    }
}

#[test]
fn the_workload_passes_a_sync_test_with_check_distance_7_on_both_backends() {
    for backend in [MathBackend::FixedPoint16_16, MathBackend::FloatPinned32] {
        let (rollbacks, hash) = backend.run(SyncTest600);
        // Every tick past the check distance rolls back 7 ticks.
        assert!(rollbacks >= 590, "{backend}: {rollbacks} rollbacks");
        assert_ne!(hash, 0);
    }
}

#[test]
fn inputs_reach_the_systems_in_a_sync_test() {
    let session = sync_test::<Fpx16_16>(120);
    let moved = session
        .world()
        .ecs()
        .query::<&Avatar>()
        .iter()
        .any(|a| a.x != 0 || a.y != 0);
    assert!(moved, "the scripted steering moved an avatar");
}

#[test]
fn effects_are_handed_over_once_through_forced_rollbacks() {
    let mut world = game::<Fpx16_16>(100, 2);
    enable_bumps(&mut world);
    let config = NetConfig {
        players: 2,
        max_prediction: 8,
        ..NetConfig::default()
    };
    let mut session = NetSession::<Steer>::sync_test(world, config, 7).unwrap();
    let mut log = BumpLog::default();
    while session.world().tick() < 600 {
        let tick = session.world().tick();
        script_input(session.world_mut(), 0, tick);
        script_input(session.world_mut(), 1, tick);
        assert_eq!(session.advance().unwrap(), Advance::Ticked);
        log.drain(session.world_mut());
    }
    let emitted = session.world().resource::<Bumps>().unwrap().0;
    let stats = session.world().effect_stats::<support::Bump>().unwrap();
    // Every tick is re-simulated 7 times, identically: each effect of the
    // timeline is predicted once, none is cancelled, and every tick the
    // session confirmed (all but the last 8) had its effects confirmed.
    assert!(emitted > 50, "{emitted} bumps");
    assert_eq!(log.predicted, emitted);
    assert_eq!(log.cancelled, 0);
    assert!(stats.matched >= 6 * emitted, "{stats:?}");
    assert!(log.confirmed_below >= 590, "{log:?}");
    let unconfirmed = log
        .live
        .iter()
        .filter(|k| k.0 >= log.confirmed_below)
        .count() as u64;
    assert_eq!(log.confirmed + unconfirmed, emitted, "{log:?}");
}

/// A process-global counter: the non-determinism under test.
static GLOBAL: AtomicI32 = AtomicI32::new(0);

/// One field (`drift`) is written from the global counter; the others stay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Tainted {
    steady: i32,
    drift: i32,
    label: u8,
}

#[test]
fn a_system_reading_a_global_counter_is_caught_within_a_few_ticks_and_named() {
    let mut world = game::<Fpx16_16>(100, 1);
    world.register_hashed_as::<Tainted>("test.tainted").unwrap();
    world
        .register_system("test/taint", 300, |ctx| {
            for t in ctx.query_mut::<&mut Tainted>() {
                // Relaxed: the counter is the bug under test, not a protocol.
                t.drift = GLOBAL.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
    let tainted = world.ecs_mut().spawn((Tainted {
        steady: 5,
        drift: 0,
        label: 1,
    },));
    let config = NetConfig {
        players: 1,
        ..NetConfig::default()
    };
    let mut session = NetSession::<Steer>::sync_test(world, config, 2).unwrap();
    let mut ticks = 0;
    while session.advance().unwrap() != Advance::Ended {
        ticks += 1;
        assert!(ticks < 20, "not caught within 20 ticks");
    }
    let end = session.end().unwrap();
    assert_eq!(end.exit_code(), EXIT_DESYNC);
    let NetEnd::Desync { report, .. } = end else {
        panic!("{end:?}");
    };
    assert!(report.contains("component test.tainted"), "{report}");
    let entity = format!("entity {}v1", tainted.id());
    assert!(report.contains(&entity), "{report}");
    assert!(
        report.contains(&format!("{entity}, field drift: field hashes")),
        "{report}"
    );
    assert_eq!(session.stats().desyncs, 1);
}
