//! The billiards game (the table of `laige-engine`'s billiards example:
//! no gravity, four cushions, six sensor pockets, fifteen racked balls and
//! the cue ball) played from player input through a rollback session's
//! sync test with check distance 7 for 600 ticks on both backends: every
//! tick is re-simulated 7 ticks back from a snapshot and its state hash
//! compared. The game's own systems run inside the rollbacks: shots from
//! the players' aim, and pocketing, which reads the physics' sensor events
//! and despawns balls or puts the cue ball back.

mod support;

use laige_core::math::BackendVisitor;
use laige_core::{MathBackend, SimScalar, Vec2};
use laige_net::{PlayerInput, PlayerInputs};
use laige_physics::{
    BodyDef, Collider, Physics, PhysicsConfig, PhysicsEventKind, PhysicsState, RigidBody, Shape,
    spawn_body,
};
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::{StateHash, World};
use support::run_sync_test;

/// Table size, metres.
const W: i32 = 24;
const H: i32 = 12;

/// A player's aim: the cue's turn off the line to the lowest ball, in
/// thousandths of a radian (held until changed).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
struct Aim(i16);

impl PlayerInput for Aim {
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        let mut aim = previous;
        for e in events {
            if let InputKind::Action { id: 1, value } = e.kind {
                aim.0 = i16::try_from(value.clamp(-1000, 1000)).unwrap_or(0);
            }
        }
        aim
    }
}

/// A ball: 0 is the cue ball. Hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Ball(u8);

/// A pocket (a sensor body). Hashed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
struct Pocket;

/// The score: a hashed resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Score {
    shots: u32,
    pocketed: u32,
    fouls: u32,
}

fn v<S: SimScalar>(x: S, y: S) -> Vec2<S> {
    Vec2::new(x, y)
}

fn m<S: SimScalar>(x: i32) -> S {
    S::from_i32(x)
}

fn cue_spot<S: SimScalar>() -> Vec2<S> {
    v(m(6), m(H / 2))
}

fn spawn_ball<S: SimScalar>(world: &mut World, at: Vec2<S>, n: u8) {
    let mut def = BodyDef::dynamic(at);
    def.linear_damping = S::from_ratio(3, 5);
    def.angular_damping = S::ONE;
    let ball = Collider::new(Shape::circle(S::from_ratio(3, 10)).unwrap())
        .restitution(S::from_ratio(9, 10))
        .friction(S::from_ratio(1, 10));
    let e = spawn_body(world, &def, &[ball]).unwrap();
    world.ecs_mut().insert_one(e, Ball(n)).unwrap();
}

fn scene<S: SimScalar + StateHash>() -> World {
    let mut world = World::default();
    let config = PhysicsConfig::<S> {
        gravity: Vec2::ZERO,
        ..PhysicsConfig::default()
    };
    Physics::install(&mut world, config, 10).unwrap();
    world.register_hashed_as::<Ball>("test.ball").unwrap();
    world.register_hashed_as::<Pocket>("test.pocket").unwrap();
    world
        .insert_hashed_resource("test.score", Score::default())
        .unwrap();
    for (x, y, hw, hh) in [
        (W / 2, -1, W / 2 + 2, 1),
        (W / 2, H + 1, W / 2 + 2, 1),
        (-1, H / 2, 1, H / 2),
        (W + 1, H / 2, 1, H / 2),
    ] {
        let cushion =
            Collider::new(Shape::<S>::rect(m(hw), m(hh)).unwrap()).restitution(S::from_ratio(4, 5));
        spawn_body(&mut world, &BodyDef::fixed(v(m(x), m(y))), &[cushion]).unwrap();
    }
    let mouth = Collider::new(Shape::circle(S::from_ratio(3, 5)).unwrap()).sensor(true);
    for (x, y) in [(0, 0), (W / 2, 0), (W, 0), (0, H), (W / 2, H), (W, H)] {
        let e = spawn_body(&mut world, &BodyDef::fixed(v(m(x), m(y))), &[mouth]).unwrap();
        world.ecs_mut().insert_one(e, Pocket).unwrap();
    }
    spawn_ball(&mut world, cue_spot::<S>(), 0);
    let gap = S::from_ratio(62, 100);
    let mut n = 1;
    for row in 0..5 {
        for k in 0..=row {
            let x = m::<S>(16) + S::from_i32(row) * gap * S::from_ratio(87, 100);
            let y = m::<S>(H / 2) + (S::from_i32(2 * k - row) * gap) / m(2);
            spawn_ball(&mut world, v(x, y), n);
            n += 1;
        }
    }
    world
        .register_system("billiards/shot", 0, |ctx| {
            // The first shot waits a few ticks for the players' aim.
            let Some(inputs) = PlayerInputs::<Aim>::of(ctx).filter(|_| ctx.tick() >= 5) else {
                return Ok(());
            };
            // The players take turns.
            let shots = ctx.resource::<Score>()?.shots;
            let aim = inputs.get((shots % 2) as usize).0;
            // At rest: every ball asleep or slower than 0.3 m/s.
            let slow = S::from_ratio(3, 10);
            let mut cue = None;
            let mut target: Option<(u8, Vec2<S>)> = None;
            for (ball, body) in ctx.query_mut::<(&Ball, &RigidBody<S>)>() {
                if !body.sleeping && body.linear_velocity.length_wide().gt(slow) {
                    return Ok(());
                }
                if ball.0 == 0 {
                    cue = Some(body.position);
                } else if target.is_none_or(|(n, _)| ball.0 < n) {
                    target = Some((ball.0, body.position));
                }
            }
            let (Some(from), Some((_, to))) = (cue, target) else {
                return Ok(());
            };
            let d = to - from;
            let len = d.length_wide();
            let (sin, cos) = S::from_ratio(i32::from(aim), 1000).sin_cos();
            let dir: Vec2<S> = v(d.x * cos - d.y * sin, d.x * sin + d.y * cos) / len;
            for (ball, body) in ctx.query_mut::<(&Ball, &mut RigidBody<S>)>() {
                if ball.0 == 0 {
                    body.linear_velocity = dir * m::<S>(14);
                    body.wake();
                }
            }
            ctx.resource_mut::<Score>()?.shots += 1;
            Ok(())
        })
        .unwrap();
    world
        .register_system("billiards/pockets", 20, |ctx| {
            let mut hits = [(0_u64, 0_u64); 8];
            let mut n = 0;
            for e in ctx.resource::<PhysicsState<S>>()?.events() {
                if e.kind == PhysicsEventKind::SensorBegin && n < hits.len() {
                    hits[n] = (e.body_a, e.body_b);
                    n += 1;
                }
            }
            for &(a, b) in &hits[..n] {
                for (me, other) in [(a, b), (b, a)] {
                    let (Some(me), Some(other)) =
                        (hecs::Entity::from_bits(me), hecs::Entity::from_bits(other))
                    else {
                        continue;
                    };
                    if ctx.get_copied::<Pocket>(me).is_none() {
                        continue;
                    }
                    let Some(ball) = ctx.get_copied::<Ball>(other) else {
                        continue;
                    };
                    if ball.0 == 0 {
                        if let Some(body) = ctx.query_one_mut::<&mut RigidBody<S>>(other) {
                            body.position = cue_spot();
                            body.linear_velocity = Vec2::ZERO;
                            body.angular_velocity = S::ZERO;
                            body.wake();
                        }
                        ctx.resource_mut::<Score>()?.fouls += 1;
                    } else {
                        ctx.despawn(other)?;
                        ctx.resource_mut::<Score>()?.pocketed += 1;
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    world
}

/// The aim script: the players' aim changes now and then.
fn aim_at(tick: u64) -> Option<i32> {
    match tick {
        // The first shot: 45° off the line to the rack's apex, towards the
        // top middle pocket.
        0 => Some(785),
        60 => Some(-30),
        300 => Some(-70),
        450 => Some(40),
        _ => None,
    }
}

#[derive(Debug, Default)]
struct Seen {
    rollbacks: u64,
    contact_begins: u64,
    score: Score,
    balls: usize,
    hash: u64,
}

struct SyncTest600;

impl<S: SimScalar + StateHash> BackendVisitor<S> for SyncTest600 {
    type Output = Seen;
    fn visit(self) -> Seen {
        let mut seen = Seen::default();
        let session = run_sync_test::<Aim>(scene::<S>(), 600, aim_at, |world| {
            for ev in world.resource::<PhysicsState<S>>().unwrap().events() {
                seen.contact_begins += u64::from(ev.kind == PhysicsEventKind::ContactBegin);
            }
        });
        let world = session.world();
        seen.rollbacks = session.stats().rollbacks;
        seen.score = *world.resource::<Score>().unwrap();
        seen.balls = world.ecs().query::<&Ball>().iter().count();
        seen.hash = world.state_hash();
        seen
    }
}

#[test]
fn billiards_passes_a_sync_test_with_check_distance_7_on_both_backends() {
    for backend in [MathBackend::FixedPoint16_16, MathBackend::FloatPinned32] {
        let seen = backend.run(SyncTest600);
        // Every tick past the check distance re-simulated 7 ticks and no
        // state differed, while the game shot, collided and pocketed.
        assert!(seen.rollbacks >= 590, "{backend}: {seen:?}");
        assert!(seen.score.shots >= 2, "{backend}: {seen:?}");
        assert!(seen.contact_begins >= 15, "{backend}: {seen:?}");
        assert!(
            seen.score.pocketed + seen.score.fouls >= 1,
            "{backend}: {seen:?}"
        );
        assert_eq!(
            seen.balls as u32 + seen.score.pocketed,
            16,
            "{backend}: {seen:?}"
        );
        assert_ne!(seen.hash, 0);
    }
}
