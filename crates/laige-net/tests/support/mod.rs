//! A small game for the session tests: the reference workload plus one
//! avatar per player that each player's input steers.

#![allow(dead_code, reason = "each test binary uses a part")]

use std::net::{SocketAddr, UdpSocket};

use laige_core::SimScalar;
use laige_net::PlayerInput;
use laige_net::PlayerInputs;
use laige_net::Seat;
use laige_sim::input::{InputEvent, InputKind};
use laige_sim::workload::{self, WorkloadConfig};
use laige_sim::{StateHash, World};

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

/// A free UDP port on loopback (bound, read, released).
pub fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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
