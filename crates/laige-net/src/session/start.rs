//! Starting a [`NetDriver`]: the GGRS session of each kind (P2P rollback
//! or lockstep, spectator, sync test) and the driver's state around it.

use web_time::Instant;

use ggrs::{DesyncDetection, PlayerType, SessionBuilder};
use laige_core::{Error, Result};
use laige_sim::World;
use laige_sim::input::InputQueue;
use laige_sim::snapshot::SnapshotRing;

use super::{GgrsConfig, HELD_COMPARED, Kind, NetDriver, ggrs_failed, install_inputs};
use crate::config::{DESYNC_INTERVAL, NetConfig};
use crate::events;
use crate::input::{MAX_PLAYERS, PlayerInput, PlayerInputs};
use crate::outcome::NetStats;
use crate::seal::SealedSocket;
use crate::seat::Seat;
use crate::transport::{PeerAddr, Transport};

/// Extra frames a lagging spectator simulates per due tick.
const SPECTATOR_CATCHUP: usize = 4;

/// A session's socket over any transport, boxed (an epoch's socket is
/// the `SocketAddr` one).
pub(super) type BoxedSocket<A> = SealedSocket<Box<dyn Transport<Addr = A>>>;

impl<I: PlayerInput, A: PeerAddr> NetDriver<I, A> {
    pub(super) fn builder(config: &NetConfig) -> Result<SessionBuilder<GgrsConfig<I, A>>> {
        config.validate()?;
        SessionBuilder::<GgrsConfig<I, A>>::new()
            .with_num_players(config.players)
            .and_then(|b| b.with_fps(config.tick_rate_hz))
            .map(|b| {
                b.with_max_prediction_window(config.max_prediction)
                    .with_input_delay(config.input_delay)
                    .with_disconnect_timeout(config.disconnect_timeout)
                    .with_disconnect_notify_delay(config.disconnect_notify)
            })
            .map_err(|e| ggrs_failed(&e))
    }

    /// A spectator's builder: more than [`SPECTATOR_CATCHUP`] frames behind
    /// the host, it simulates that many extra frames per due tick (GGRS's
    /// default, 1, loses a spectator that stalls for a second: the host
    /// keeps 60 frames for it).
    fn spectator_builder(config: &NetConfig) -> Result<SessionBuilder<GgrsConfig<I, A>>> {
        Self::builder(config)?
            .with_catchup_speed(SPECTATOR_CATCHUP)
            .map_err(|e| ggrs_failed(&e))
    }

    pub(super) fn build(world: &mut World, config: NetConfig, kind: Kind<I, A>) -> Result<Self> {
        let inputs_entity = install_inputs::<I>(world, config.players)?;
        world.check_snapshot_coverage()?;
        let save_slots = config.max_prediction.max(1) + 2;
        // The save slots, a sync test's scratch slot, then the copies of
        // the last compared ticks a P2P desync report dumps.
        let ring = SnapshotRing::new(world, save_slots + 1 + HELD_COMPARED)?;
        let local_events = InputQueue::with_capacity(world.input().capacity())?;
        // Effects of ticks a rollback may re-simulate wait for the
        // confirmed tick (after_tick); lockstep and spectators simulate
        // final ticks only.
        world.predict_effects(match &kind {
            Kind::P2P { .. } => config.max_prediction > 0,
            Kind::Spectator(_) => false,
            Kind::SyncTest { .. } => true,
            Kind::Joining => config.max_prediction > 0,
        });
        Ok(Self {
            kind,
            ring,
            local_events,
            spectators: Vec::new(),
            recorder: None,
            pending_record: None,
            last_inputs: vec![(u64::MAX, PlayerInputs::new(config.players)); save_slots + 1],
            record_buf: Vec::with_capacity(1 + MAX_PLAYERS * 64),
            save_slots,
            inputs_entity,
            local_input: I::default(),
            stamp_floor: 0,
            input_tick: None,
            config,
            stats: NetStats::default(),
            skip_credit: 0,
            end: None,
            started: Instant::now(),
            confirmed: Vec::with_capacity(config.confirmed_log),
            next_confirmed: 0,
            mismatch: None,
            dump_prefix: None,
            desync_dump: None,
            roster: Vec::new(),
            seat_of: (0..config.players).collect(),
            base: 0,
            epoch: 0,
            epochs: None,
            epoch_hook: None,
            changes: Vec::new(),
            lost_seats: Vec::new(),
            pending_delay: None,
            ever_seated: vec![false; config.players],
            integrity: Vec::new(),
        })
    }

    /// A P2P session over `socket`, one [`Seat`] per player (handle =
    /// index). The socket accepts datagrams only from the seats' and
    /// spectators' addresses, sealed under its key (every peer's must be
    /// the same). `max_prediction: 0` makes it lockstep. The world has its
    /// systems registered and its entities spawned; the session registers
    /// [`PlayerInputs`] (`net.player_inputs`) and spawns its entity.
    ///
    /// # Errors
    /// `net/config_invalid` (a bad config, fewer than 2 seats, seats not
    /// matching `players`, no local seat);
    /// `snapshot/unregistered_component` (an entity holds an unregistered
    /// component); `net/session_failed` (GGRS refused).
    pub fn p2p(
        world: &mut World,
        config: NetConfig,
        seats: &[Seat<A>],
        socket: SealedSocket<impl Transport<Addr = A> + 'static>,
    ) -> Result<Self> {
        let n_seats = seats
            .iter()
            .take_while(|s| !matches!(s, Seat::Spectator(_)))
            .count();
        let (roster, spectators) = seats.split_at(n_seats);
        let occupied = roster.iter().filter(|s| **s != Seat::Empty).count();
        let spectators_last = spectators.iter().all(|s| matches!(s, Seat::Spectator(_)));
        if n_seats != config.players || occupied < 2 || !spectators_last {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "seats",
                seats.len(),
                "one seat per player (NetConfig::players, at least 2 not empty), then any spectators",
            ));
        }
        if !roster.contains(&Seat::Local) {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "seats",
                "no local seat",
                "at least one Seat::Local",
            ));
        }
        let spectators: Vec<A> = spectators
            .iter()
            .filter_map(|s| match s {
                Seat::Spectator(addr) => Some(addr.clone()),
                _ => None,
            })
            .collect();
        let socket = socket.boxed();
        let counters = socket.counters();
        let (kind, seat_of) = Self::start_p2p(&config, roster, &spectators, socket)?;
        let mut driver = Self::build(world, config, kind)?;
        driver.integrity.push(counters);
        driver.seat_of = seat_of;
        driver.roster = roster.to_vec();
        driver.spectators = spectators;
        for (seat, s) in roster.iter().enumerate() {
            driver.ever_seated[seat] = *s != Seat::Empty;
        }
        Ok(driver)
    }

    /// Starts a spectator's GGRS session of the host at `host`, whose
    /// players are the roster's seats that are not empty.
    pub(super) fn start_spectator(
        config: &NetConfig,
        roster: &[Seat<A>],
        host: A,
        mut socket: BoxedSocket<A>,
    ) -> Result<(Kind<I, A>, Vec<usize>)> {
        socket.add_peers([host.clone()]);
        let seat_of: Vec<usize> = (0..roster.len())
            .filter(|&s| roster[s] != Seat::Empty)
            .collect();
        let players = NetConfig {
            players: seat_of.len(),
            ..*config
        };
        let session = Self::spectator_builder(&players)?.start_spectator_session(host, socket);
        Ok((Kind::Spectator(Box::new(session)), seat_of))
    }

    /// Starts a P2P GGRS session for the seats of `roster` that are not
    /// empty (handle = their order), then `spectators`; returns it with
    /// each handle's seat.
    pub(super) fn start_p2p(
        config: &NetConfig,
        roster: &[Seat<A>],
        spectators: &[A],
        mut socket: BoxedSocket<A>,
    ) -> Result<(Kind<I, A>, Vec<usize>)> {
        socket.add_peers(roster.iter().filter_map(|s| match s {
            Seat::Remote(addr) | Seat::Spectator(addr) => Some(addr.clone()),
            Seat::Local | Seat::Empty => None,
        }));
        socket.add_peers(spectators.iter().cloned());
        let seat_of: Vec<usize> = (0..roster.len())
            .filter(|&s| roster[s] != Seat::Empty)
            .collect();
        let players = NetConfig {
            players: seat_of.len(),
            ..*config
        };
        let mut builder =
            Self::builder(&players)?.with_desync_detection_mode(DesyncDetection::On {
                interval: DESYNC_INTERVAL,
            });
        let mut local = Vec::new();
        for (handle, &seat) in seat_of.iter().enumerate() {
            let player = match &roster[seat] {
                Seat::Remote(addr) => PlayerType::Remote(addr.clone()),
                Seat::Spectator(addr) => PlayerType::Spectator(addr.clone()),
                Seat::Local | Seat::Empty => {
                    local.push(handle);
                    PlayerType::Local
                }
            };
            builder = builder
                .add_player(player, handle)
                .map_err(|e| ggrs_failed(&e))?;
        }
        for (i, addr) in spectators.iter().enumerate() {
            builder = builder
                .add_player(PlayerType::Spectator(addr.clone()), seat_of.len() + i)
                .map_err(|e| ggrs_failed(&e))?;
        }
        let session = builder
            .start_p2p_session(socket)
            .map_err(|e| ggrs_failed(&e))?;
        Ok((
            Kind::P2P {
                session: Box::new(session),
                local,
            },
            seat_of,
        ))
    }

    /// A spectator of the host at `host`: receives every player's
    /// confirmed inputs and simulates them (no local player, no rollback).
    ///
    /// # Errors
    /// As [`p2p`](Self::p2p).
    pub fn spectator(
        world: &mut World,
        config: NetConfig,
        host: A,
        socket: SealedSocket<impl Transport<Addr = A> + 'static>,
    ) -> Result<Self> {
        let mut socket = socket.boxed();
        socket.add_peers([host.clone()]);
        let counters = socket.counters();
        let session =
            Self::spectator_builder(&config)?.start_spectator_session(host.clone(), socket);
        let mut driver = Self::build(world, config, Kind::Spectator(Box::new(session)))?;
        driver.integrity.push(counters);
        driver.roster = vec![Seat::Remote(host); config.players];
        Ok(driver)
    }
}

impl<I: PlayerInput> NetDriver<I> {
    /// A sync test: every tick, roll back `check_distance` ticks and
    /// re-simulate them, comparing the state hashes; a difference ends the
    /// session with a report naming the component and the entity. All
    /// players are local (their input is built from the world's queue).
    ///
    /// # Errors
    /// `net/config_invalid` for `check_distance` outside
    /// `1..max_prediction`; otherwise as [`p2p`](Self::p2p).
    pub fn sync_test(world: &mut World, config: NetConfig, check_distance: usize) -> Result<Self> {
        if check_distance == 0 || check_distance >= config.max_prediction {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "check_distance",
                check_distance,
                "1..max_prediction ticks",
            ));
        }
        let session = Self::builder(&config)?
            .with_check_distance(check_distance)
            .start_synctest_session()
            .map_err(|e| ggrs_failed(&e))?;
        Self::build(
            world,
            config,
            Kind::SyncTest {
                session: Box::new(session),
                check_distance,
            },
        )
    }
}
