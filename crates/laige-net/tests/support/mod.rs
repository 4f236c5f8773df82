//! A small game for the session tests: the reference workload plus one
//! avatar per player that each player's input steers.

#![allow(dead_code, reason = "each test binary uses a part")]

use std::net::SocketAddr;

use laige_core::SimScalar;
use laige_net::PlayerInput;
use laige_net::PlayerInputs;
use laige_net::Seat;
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::workload::{self, WorkloadConfig};
use laige_sim::{StateHash, World};

mod ports;
#[allow(unused_imports, reason = "each test binary uses a part")]
pub use ports::free_port;

/// One player's steering: -1, 0 or 1 per axis.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize,
)]
pub struct Steer {
    pub dx: i8,
    pub dy: i8,
}

/// Action id 1 sets dx, 2 sets dy.
impl PlayerInput for Steer {
    fn from_events(previous: Self, events: &[InputEvent]) -> Self {
        let mut s = previous;
        for e in events {
            if let InputKind::Action { id, value } = e.kind {
                let v = i8::try_from(value.clamp(-1, 1)).unwrap_or(0);
                match id {
                    1 => s.dx = v,
                    2 => s.dy = v,
                    _ => {}
                }
            }
        }
        s
    }
}

/// A player's avatar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, StateHash)]
pub struct Avatar {
    pub player: u8,
    pub x: i32,
    pub y: i32,
}

/// The workload (`entities`) plus one avatar per player, steered by the
/// players' inputs.
pub fn game<S: SimScalar + StateHash>(entities: u32, players: u8) -> World {
    let mut world = World::default();
    workload::install::<S>(
        &mut world,
        &WorkloadConfig {
            entities,
            ..WorkloadConfig::default()
        },
    )
    .unwrap();
    world.register_hashed_as::<Avatar>("test.avatar").unwrap();
    world
        .register_system("test/steer", 50, |ctx| {
            let Some(inputs) = PlayerInputs::<Steer>::of(ctx) else {
                return Ok(());
            };
            for a in ctx.query_mut::<&mut Avatar>() {
                let steer = inputs.get(usize::from(a.player));
                a.x += i32::from(steer.dx);
                a.y += i32::from(steer.dy);
            }
            Ok(())
        })
        .unwrap();
    for player in 0..players {
        world.ecs_mut().spawn((Avatar { player, x: 0, y: 0 },));
    }
    world
}

/// A scripted player: at every 9th-to-17th tick (a per-player pattern)
/// the steering changes, so remote predictions fail now and then.
pub fn script_input(world: &mut World, player: u8, tick: u64) {
    let period = 9 + u64::from(player) * 4;
    if tick.is_multiple_of(period) {
        let phase = (tick / period + u64::from(player)) % 3;
        let value = i32::try_from(phase).unwrap_or(0) - 1;
        world
            .input_mut()
            .push_at(
                tick,
                0,
                InputKind::Action {
                    id: 1 + u32::from(player % 2),
                    value,
                },
            )
            .unwrap();
    }
}

/// The seats of player `me` of two on loopback: itself local, the other
/// remote at its port.
pub fn player_seats(me: usize, ports: [u16; 2]) -> Vec<Seat> {
    (0..2)
        .map(|i| {
            if i == me {
                Seat::Local
            } else {
                Seat::Remote(SocketAddr::from(([127, 0, 0, 1], ports[i])))
            }
        })
        .collect()
}

/// A presentation effect of the test game: an avatar stepped onto a
/// square whose `x + y` is a multiple of 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bump {
    pub tick: u64,
    pub player: u8,
    /// `x + 1000 y` of the square.
    pub x: i32,
}

/// How many bumps the simulation emitted, as world state (so the current
/// timeline's count is in the world a rollback restores).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
pub struct Bumps(pub u64);

/// Enables [`Bump`] effects: a system after the steering emits one per
/// avatar off the origin on a square whose `x + y` is a multiple of 4,
/// counting them in the hashed [`Bumps`] resource.
pub fn enable_bumps(world: &mut World) {
    world
        .enable_effects::<Bump>(laige_sim::effects::EffectConfig::default())
        .unwrap();
    world
        .insert_hashed_resource("test.bumps", Bumps(0))
        .unwrap();
    world
        .register_system("test/bump", 60, |ctx| {
            let tick = ctx.tick();
            let mut found = [(0_u8, 0_i32); 4];
            let mut n = 0;
            for a in ctx.query_mut::<&Avatar>() {
                if (a.x + a.y) % 4 == 0 && (a.x, a.y) != (0, 0) && n < found.len() {
                    found[n] = (a.player, a.x + 1000 * a.y);
                    n += 1;
                }
            }
            for &(player, x) in &found[..n] {
                ctx.effect(Bump { tick, player, x })?;
            }
            ctx.resource_mut::<Bumps>()?.0 += n as u64;
            Ok(())
        })
        .unwrap();
}

/// What presentation saw of the bumps: every event drained, checked as it
/// comes (a confirmed or cancelled effect was predicted first, none is
/// handed over twice).
#[derive(Debug, Default)]
pub struct BumpLog {
    /// Predicted and not cancelled: playing.
    pub live: std::collections::BTreeSet<(u64, u8, i32)>,
    pub predicted: u64,
    pub cancelled: u64,
    pub confirmed: u64,
    /// Ticks below this had their effects confirmed (the highest
    /// confirmed tick + 1).
    pub confirmed_below: u64,
}

impl BumpLog {
    pub fn drain(&mut self, world: &mut World) {
        use laige_sim::effects::EffectKind;
        world
            .drain_effects::<Bump>(|e| {
                let key = (e.effect.tick, e.effect.player, e.effect.x);
                assert_eq!(e.tick, e.effect.tick, "{e:?}");
                match e.kind {
                    EffectKind::Predicted => {
                        assert!(self.live.insert(key), "handed over twice: {e:?}");
                        self.predicted += 1;
                    }
                    EffectKind::Cancelled => {
                        assert!(self.live.remove(&key), "cancelled unseen: {e:?}");
                        self.cancelled += 1;
                    }
                    EffectKind::Confirmed { predicted } => {
                        assert!(predicted, "a session predicts first: {e:?}");
                        assert!(self.live.contains(&key), "confirmed unseen: {e:?}");
                        self.confirmed += 1;
                        self.confirmed_below = self.confirmed_below.max(e.tick + 1);
                    }
                }
            })
            .unwrap();
    }
}

/// Opens each epoch's socket on a fresh loopback port, through `faults`
/// (the seed varies per epoch).
pub fn epoch_sockets(faults: laige_net::fault::Faults) -> laige_net::SocketFactory {
    let mut epoch = 0;
    Box::new(move || {
        epoch += 1;
        let io = |e: std::io::Error| {
            laige_core::Error::new(laige_core::ErrorCode::Io, laige_net::events::EPOCH_FAILED)
                .with_detail(e.to_string())
        };
        // Bound once on any free port and kept: a port read and released
        // could be taken by a parallel run before it is bound again.
        let socket = laige_net::UdpNonBlockingSocket::bind_to_port(0).map_err(io)?;
        let port = socket.transport().local_addr().map_err(io)?.port();
        let faults = laige_net::fault::Faults {
            seed: faults.seed.wrapping_mul(31).wrapping_add(epoch),
            ..faults
        };
        Ok((socket.with_faults(faults)?.boxed(), port))
    })
}
