//! Rollback-safe effects: each effect reaches presentation once; a
//! re-simulation that emits the same effects hands nothing over again; one
//! that no longer emits an effect cancels it; a final tick confirms each
//! of its effects once. Rollbacks here are the snapshot ring's, by hand,
//! as a rollback session does them.

use laige_core::ErrorCode;
use laige_sim::effects::{EffectConfig, EffectEvent, EffectKind, EffectReader};
use laige_sim::snapshot::SnapshotRing;
use laige_sim::{StateHash, SystemSchedule, World, events};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fx {
    Hit(u64),
    Twist,
}

/// The input of the next tick: a hashed resource the test sets, as a
/// session installs players' inputs.
#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Press(u32);

/// Emits `Hit(tick)` on every third tick, and `Twist` on a tick whose
/// press is odd.
fn game(config: EffectConfig) -> (World, SystemSchedule) {
    let mut world = World::default();
    world
        .insert_hashed_resource("test.press", Press(0))
        .unwrap();
    world.enable_effects::<Fx>(config).unwrap();
    world
        .register_system("fx", 0, |ctx| {
            if ctx.tick() % 3 == 0 {
                ctx.effect(Fx::Hit(ctx.tick()))?;
            }
            if ctx.resource::<Press>()?.0 % 2 == 1 {
                ctx.effect(Fx::Twist)?;
            }
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    (world, schedule)
}

fn drain(world: &mut World) -> Vec<EffectEvent<Fx>> {
    let mut out = Vec::new();
    world.drain_effects::<Fx>(|e| out.push(e)).unwrap();
    out
}

fn run(world: &mut World, schedule: &SystemSchedule, ticks: u64, press: impl Fn(u64) -> u32) {
    for _ in 0..ticks {
        let p = press(world.tick());
        world.resource_mut::<Press>().unwrap().0 = p;
        world.run_systems(schedule).unwrap();
    }
}

fn ev(tick: u64, effect: Fx, kind: EffectKind) -> EffectEvent<Fx> {
    EffectEvent { tick, effect, kind }
}

const ONCE: EffectKind = EffectKind::Confirmed { predicted: false };
const CONFIRMED: EffectKind = EffectKind::Confirmed { predicted: true };

#[test]
fn without_a_session_each_effect_arrives_once_confirmed() {
    let (mut world, schedule) = game(EffectConfig::default());
    run(&mut world, &schedule, 7, |t| u32::from(t == 4));
    assert_eq!(
        drain(&mut world),
        [
            ev(0, Fx::Hit(0), ONCE),
            ev(3, Fx::Hit(3), ONCE),
            ev(4, Fx::Twist, ONCE),
            ev(6, Fx::Hit(6), ONCE),
        ]
    );
    assert!(drain(&mut world).is_empty(), "drained once");
    let stats = world.effect_stats::<Fx>().unwrap();
    assert_eq!(
        (stats.confirmed, stats.predicted, stats.cancelled),
        (4, 0, 0)
    );
}

#[test]
fn an_identical_resimulation_hands_nothing_over_and_confirmation_comes_once() {
    let (mut world, schedule) = game(EffectConfig::default());
    world.predict_effects(true);
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    run(&mut world, &schedule, 2, |_| 1);
    ring.save(0, &world).unwrap();
    run(&mut world, &schedule, 8, |_| 1);
    let first = drain(&mut world);
    // Ticks 0..10: Hit on 0, 3, 6, 9 and Twist on every tick, predicted.
    assert_eq!(first.len(), 4 + 10);
    assert!(first.iter().all(|e| e.kind == EffectKind::Predicted));
    // Three rollbacks to tick 2 and the same 8 ticks again.
    for _ in 0..3 {
        ring.load(0, &mut world).unwrap();
        run(&mut world, &schedule, 8, |_| 1);
        assert!(drain(&mut world).is_empty());
    }
    assert_eq!(world.effect_stats::<Fx>().unwrap().matched, 3 * (3 + 8));
    // Ticks below 6 become final: their 2 + 6 effects, once each.
    world.confirm_effects(6);
    let confirmed = drain(&mut world);
    assert_eq!(confirmed.len(), 2 + 6);
    assert!(confirmed.iter().all(|e| e.kind == CONFIRMED && e.tick < 6));
    world.confirm_effects(6);
    world.confirm_effects(3);
    assert!(drain(&mut world).is_empty(), "confirmed once");
    world.confirm_effects(10);
    assert_eq!(drain(&mut world).len(), 2 + 4);
    let stats = world.effect_stats::<Fx>().unwrap();
    assert_eq!(
        (stats.predicted, stats.confirmed, stats.cancelled),
        (14, 14, 0)
    );
}

#[test]
fn a_rollback_that_removes_an_effect_cancels_it_and_a_new_one_is_predicted() {
    let (mut world, schedule) = game(EffectConfig::default());
    world.predict_effects(true);
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    run(&mut world, &schedule, 4, |_| 0);
    ring.save(0, &world).unwrap();
    // Predicted: a press on tick 5 (Twist), Hit on 6.
    run(&mut world, &schedule, 4, |t| u32::from(t == 5));
    assert_eq!(
        drain(&mut world),
        [
            ev(0, Fx::Hit(0), EffectKind::Predicted),
            ev(3, Fx::Hit(3), EffectKind::Predicted),
            ev(5, Fx::Twist, EffectKind::Predicted),
            ev(6, Fx::Hit(6), EffectKind::Predicted),
        ]
    );
    // The confirmed input says the press was on tick 7.
    ring.load(0, &mut world).unwrap();
    run(&mut world, &schedule, 4, |t| u32::from(t == 7));
    assert_eq!(
        drain(&mut world),
        [
            ev(5, Fx::Twist, EffectKind::Cancelled),
            ev(7, Fx::Twist, EffectKind::Predicted),
        ]
    );
    world.confirm_effects(8);
    assert_eq!(
        drain(&mut world),
        [
            ev(0, Fx::Hit(0), CONFIRMED),
            ev(3, Fx::Hit(3), CONFIRMED),
            ev(6, Fx::Hit(6), CONFIRMED),
            ev(7, Fx::Twist, CONFIRMED),
        ]
    );
}

#[test]
fn a_failed_tick_hands_nothing_over() {
    let mut world = World::default();
    world.enable_effects::<Fx>(EffectConfig::default()).unwrap();
    world
        .register_system("fx_then_fail", 0, |ctx| {
            ctx.effect(Fx::Hit(ctx.tick()))?;
            if ctx.tick() == 1 {
                return Err(laige_core::Error::new(
                    ErrorCode::Failed,
                    events::SNAPSHOT_BYTES_CORRUPT,
                ));
            }
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    world.run_systems(&schedule).unwrap();
    assert!(world.run_systems(&schedule).is_err());
    assert_eq!(drain(&mut world), [ev(0, Fx::Hit(0), ONCE)]);
}

#[test]
fn limits_drop_and_count_and_bad_use_is_a_clear_error() {
    let config = EffectConfig {
        per_tick: 1,
        window: 2,
        outbox: 3,
    };
    let (mut world, schedule) = game(config);
    // Tick 0 emits Hit and Twist: one over per_tick.
    run(&mut world, &schedule, 1, |_| 1);
    assert_eq!(drain(&mut world), [ev(0, Fx::Hit(0), ONCE)]);
    assert_eq!(world.effect_stats::<Fx>().unwrap().dropped, 1);
    // Five effects into a ring of three (tick 3's Twist over per_tick): a
    // reader that keeps up sees all five; one that read after the first
    // and then fell behind sees the newest three and missed one.
    let mut early = EffectReader::default();
    let mut late = EffectReader::default();
    let (mut seen, mut late_seen) = (Vec::new(), Vec::new());
    for t in 1..=5 {
        run(&mut world, &schedule, 1, |_| 1);
        world
            .read_effects::<Fx>(&mut early, |e| seen.push(e.tick))
            .unwrap();
        if t == 1 {
            world
                .read_effects::<Fx>(&mut late, |e| late_seen.push(e.tick))
                .unwrap();
        }
    }
    assert_eq!(seen, [1, 2, 3, 4, 5]);
    world
        .read_effects::<Fx>(&mut late, |e| late_seen.push(e.tick))
        .unwrap();
    assert_eq!((late_seen, late.missed), (vec![1, 3, 4, 5], 1));
    world
        .read_effects::<Fx>(&mut early, |_| panic!("seen once"))
        .unwrap();
    assert_eq!(early.missed, 0);
    assert_eq!(drain(&mut world).len(), 3);
    let stats = world.effect_stats::<Fx>().unwrap();
    assert_eq!((stats.dropped, stats.overwritten), (2, 2));
    // A window of two unconfirmed ticks: the third confirms the oldest
    // (tick 6: Hit, its Twist over per_tick), then predicts its own.
    world.predict_effects(true);
    run(&mut world, &schedule, 2, |_| 1);
    assert_eq!(drain(&mut world).len(), 2);
    run(&mut world, &schedule, 1, |_| 1);
    assert_eq!(
        drain(&mut world),
        [
            ev(6, Fx::Hit(6), CONFIRMED),
            ev(8, Fx::Twist, EffectKind::Predicted),
        ]
    );

    let err = world
        .enable_effects::<Fx>(EffectConfig::default())
        .unwrap_err();
    assert_eq!(err.id(), events::EFFECTS_ALREADY_ENABLED);
    let bad = EffectConfig {
        window: 0,
        ..EffectConfig::default()
    };
    let err = World::default().enable_effects::<Fx>(bad).unwrap_err();
    assert_eq!(err.id(), events::EFFECTS_CONFIG_INVALID);
    assert_eq!(err.field(), Some("window"));

    let mut plain = World::default();
    plain
        .register_system("fx", 0, |ctx| ctx.effect(Fx::Twist))
        .unwrap();
    let s = plain.schedule_systems();
    let err = plain.run_systems(&s).unwrap_err();
    assert_eq!(err.id(), events::EFFECTS_NOT_ENABLED);
    assert!(err.to_string().contains("Fx"), "{err}");
}

#[test]
fn ticks_re_run_after_they_were_final_hand_nothing_over_while_muted() {
    let (mut world, schedule) = game(EffectConfig::default());
    world.predict_effects(true);
    let mut ring = SnapshotRing::new(&world, 1).unwrap();
    run(&mut world, &schedule, 2, |_| 0);
    ring.save(0, &world).unwrap();
    run(&mut world, &schedule, 8, |_| 0);
    world.confirm_effects(10);
    // Hit on 0, 3, 6, 9: predicted, then confirmed.
    assert_eq!(drain(&mut world).len(), 2 * 4);
    // The final past re-run with other inputs (a session settling on a
    // lost player's last input): muted, nothing is handed over, not even
    // the Twists the new inputs emit, and nothing is counted.
    let before = world.effect_stats::<Fx>().unwrap();
    ring.load(0, &mut world).unwrap();
    world.mute_effects(true);
    run(&mut world, &schedule, 8, |_| 1);
    world.mute_effects(false);
    assert_eq!(world.tick(), 10);
    assert!(drain(&mut world).is_empty());
    assert_eq!(world.effect_stats::<Fx>().unwrap(), before);
    // Unmuted, the next ticks flow as before: predicted, then confirmed.
    run(&mut world, &schedule, 3, |_| 1);
    assert_eq!(
        drain(&mut world),
        [
            ev(10, Fx::Twist, EffectKind::Predicted),
            ev(11, Fx::Twist, EffectKind::Predicted),
            ev(12, Fx::Hit(12), EffectKind::Predicted),
            ev(12, Fx::Twist, EffectKind::Predicted),
        ]
    );
    world.confirm_effects(13);
    assert_eq!(drain(&mut world).len(), 4);
}
