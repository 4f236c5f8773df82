//! Bench area `physics`: laige-physics on both backends beside rapier2d
//! (f32, its defaults: 4 solver iterations, its BVH broadphase) on the
//! same scenes, one step of each contender per round, interleaved, so all
//! three sit at the same simulated time in every round. Sleep is off in
//! both engines: a step's cost with every body awake (asleep, a scene
//! costs almost nothing in either).
//!
//! - `physics.<scene>.<fx|fp|rapier>.step_us.{median,p99}`: µs per step of
//!   the scene's first 300 steps (5 s: the pour and the settling):
//!   `circles_1k` (1,000 circles of radius 0.25 m poured into a 40 m box)
//!   and `pyramid` (the 20-row, 210-box pyramid).
//! - `physics.<scene>.<fx|fp>_vs_rapier`: ours over rapier2d's median.
//! - `physics.broadphase.fx.<n>.step_us`: n circles (1k/4k/16k) spread
//!   without gravity or contacts, so a step is gather, sort-and-sweep and
//!   integration; `physics.broadphase.fx.<n>.per_nlogn`: that time over
//!   `n·log₂n`, relative to 1k (a flat 1.0 is n log n).

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_physics::{BodyDef, Collider, Physics, PhysicsConfig, Shape, spawn_body};
use laige_sim::{StateHash, SystemSchedule, World};
use rapier2d::prelude::{ColliderBuilder, PhysicsWorld, RigidBodyBuilder, Vector};

use crate::harness::Bench;

/// Runs the area.
pub fn run(b: &mut Bench) {
    for scene in [Scene::Circles, Scene::Pyramid] {
        if b.wants(&format!("physics.{}", scene.name())) {
            compare(b, scene);
        }
    }
    if b.wants("physics.broadphase") {
        broadphase(b);
    }
}

#[derive(Clone, Copy)]
enum Scene {
    Circles,
    Pyramid,
}

impl Scene {
    fn name(self) -> &'static str {
        match self {
            Self::Circles => "circles_1k",
            Self::Pyramid => "pyramid",
        }
    }

    /// Every body: (dynamic, x, y, half-width, half-height; circle when
    /// half-height is zero), in metres.
    fn bodies(self) -> Vec<(bool, i32, i32, i32, i32)> {
        // Positions and sizes in 1/100 m, so both engines build the same
        // scene from integers.
        let mut out = Vec::new();
        match self {
            Self::Circles => {
                out.push((false, 0, -50, 2000, 50));
                out.push((false, -2050, 1500, 50, 1500));
                out.push((false, 2050, 1500, 50, 1500));
                for i in 0..1000 {
                    let (col, row) = (i % 50, i / 50);
                    out.push((
                        true,
                        -1500 + col * 60 + (row % 2) * 20,
                        100 + row * 60,
                        25,
                        0,
                    ));
                }
            }
            Self::Pyramid => {
                out.push((false, 0, -100, 3000, 100));
                for i in 0..20 {
                    for j in i..20 {
                        let x = (i + 1) * 50 + (j - i) * 100 - 1000;
                        out.push((true, x, (2 * i + 1) * 50, 50, 50));
                    }
                }
            }
        }
        out
    }
}

fn cm<S: SimScalar>(v: i32) -> S {
    S::from_ratio(v, 100)
}

fn laige_world<S: SimScalar + StateHash>(
    bodies: &[(bool, i32, i32, i32, i32)],
    gravity: bool,
) -> (World, SystemSchedule) {
    let mut world = World::default();
    let config = PhysicsConfig::<S> {
        gravity: if gravity {
            PhysicsConfig::<S>::default().gravity
        } else {
            Vec2::ZERO
        },
        enable_sleep: false,
        ..PhysicsConfig::default()
    };
    Physics::install(&mut world, config, 0).expect("physics installs");
    for &(dynamic, x, y, hw, hh) in bodies {
        let shape = if hh == 0 {
            Shape::<S>::circle(cm(hw))
        } else {
            Shape::<S>::rect(cm(hw), cm(hh))
        }
        .expect("scene shapes are in range");
        let at = Vec2::new(cm(x), cm(y));
        let def = if dynamic {
            BodyDef::dynamic(at)
        } else {
            BodyDef::fixed(at)
        };
        spawn_body(&mut world, &def, &[Collider::new(shape)]).expect("scene bodies are in range");
    }
    let schedule = world.schedule_systems();
    (world, schedule)
}

fn rapier_world(bodies: &[(bool, i32, i32, i32, i32)], gravity: bool) -> PhysicsWorld {
    let mut w = PhysicsWorld {
        gravity: Vector::new(0.0, if gravity { -10.0 } else { 0.0 }),
        ..PhysicsWorld::default()
    };
    let m = |v: i32| v as f32 / 100.0;
    for &(dynamic, x, y, hw, hh) in bodies {
        let body = if dynamic {
            RigidBodyBuilder::dynamic()
        } else {
            RigidBodyBuilder::fixed()
        }
        .translation(Vector::new(m(x), m(y)))
        .can_sleep(false);
        let collider = if hh == 0 {
            ColliderBuilder::ball(m(hw))
        } else {
            ColliderBuilder::cuboid(m(hw), m(hh))
        }
        .friction(0.6);
        w.insert(body, collider);
    }
    w
}

fn compare(b: &mut Bench, scene: Scene) {
    let bodies = scene.bodies();
    let (mut fx, fx_s) = laige_world::<Fpx16_16>(&bodies, true);
    let (mut fp, fp_s) = laige_world::<Fp32Pinned>(&bodies, true);
    let mut rapier = rapier_world(&bodies, true);
    let samples = b.scaled(300);
    let stats = b.interleaved(
        samples,
        1,
        &mut [
            &mut || fx.run_systems(&fx_s).is_ok(),
            &mut || fp.run_systems(&fp_s).is_ok(),
            &mut || {
                rapier.step();
                true
            },
        ],
    );
    let name = scene.name();
    for (who, s) in ["fx", "fp", "rapier"].iter().zip(&stats) {
        b.record(
            &format!("physics.{name}.{who}.step_us.median"),
            s.median / 1e3,
            "us",
        );
        b.record(
            &format!("physics.{name}.{who}.step_us.p99"),
            s.p99 / 1e3,
            "us",
        );
    }
    b.ratio(
        &format!("physics.{name}.fx_vs_rapier"),
        stats[0].median,
        stats[2].median,
    );
    b.ratio(
        &format!("physics.{name}.fp_vs_rapier"),
        stats[1].median,
        stats[2].median,
    );
}

fn broadphase(b: &mut Bench) {
    let mut base = 0.0;
    for n in [1000i32, 4000, 16000] {
        let side = (f64::from(n).sqrt().ceil()) as i32;
        let bodies: Vec<_> = (0..n)
            .map(|i| {
                (
                    true,
                    (i % side) * 150 - side * 75,
                    (i / side) * 150 - side * 75,
                    25,
                    0,
                )
            })
            .collect();
        let (mut world, schedule) = laige_world::<Fpx16_16>(&bodies, false);
        let stats = b.measure(b.scaled(100), 1, || world.run_systems(&schedule).is_ok());
        let us = stats.median / 1e3;
        b.record(&format!("physics.broadphase.fx.{n}.step_us"), us, "us");
        let nlogn = f64::from(n) * f64::from(n).log2();
        if n == 1000 {
            base = us / nlogn;
        }
        b.record(
            &format!("physics.broadphase.fx.{n}.per_nlogn"),
            us / nlogn / base,
            "x",
        );
    }
}
