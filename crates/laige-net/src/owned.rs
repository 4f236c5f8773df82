//! [`NetSession`]: a [`NetDriver`] with the world it drives, for a host
//! that runs its own loop (a test, a dedicated server, the example).

use std::net::SocketAddr;

use laige_core::Result;
use laige_sim::{SystemSchedule, World};

use crate::config::NetConfig;
use crate::input::PlayerInput;
use crate::outcome::{Advance, NetEnd, NetStats};
use crate::seat::Seat;
use crate::session::NetDriver;
use crate::transport::PeerAddr;

/// A laige world run by a GGRS session: P2P (rollback, or lockstep with
/// `max_prediction: 0`), spectator or sync test. It owns the world and
/// its schedule; call [`advance`](Self::advance) once per due tick (see
/// [`NetDriver::advance`] for what one call does). `A` is the peers'
/// address type ([`NetDriver`]'s).
pub struct NetSession<I: PlayerInput, A: PeerAddr = SocketAddr> {
    driver: NetDriver<I, A>,
    world: World,
    schedule: SystemSchedule,
}

impl<I: PlayerInput, A: PeerAddr> std::fmt::Debug for NetSession<I, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetSession")
            .field("tick", &self.world.tick())
            .field("driver", &self.driver)
            .finish_non_exhaustive()
    }
}

impl<I: PlayerInput, A: PeerAddr> NetSession<I, A> {
    fn own(
        mut world: World,
        make: impl FnOnce(&mut World) -> Result<NetDriver<I, A>>,
    ) -> Result<Self> {
        let driver = make(&mut world)?;
        let schedule = world.schedule_systems();
        Ok(Self {
            driver,
            world,
            schedule,
        })
    }

    /// A P2P session ([`NetDriver::p2p`]) that owns `world`.
    ///
    /// # Errors
    /// As [`NetDriver::p2p`].
    pub fn p2p(
        world: World,
        config: NetConfig,
        seats: &[Seat<A>],
        socket: crate::SealedSocket<impl crate::Transport<Addr = A> + 'static>,
    ) -> Result<Self> {
        Self::own(world, |w| NetDriver::p2p(w, config, seats, socket))
    }

    /// A spectator ([`NetDriver::spectator`]) that owns `world`.
    ///
    /// # Errors
    /// As [`NetDriver::spectator`].
    pub fn spectator(
        world: World,
        config: NetConfig,
        host: A,
        socket: crate::SealedSocket<impl crate::Transport<Addr = A> + 'static>,
    ) -> Result<Self> {
        Self::own(world, |w| NetDriver::spectator(w, config, host, socket))
    }
}

impl<I: PlayerInput> NetSession<I> {
    /// A player joining a running session ([`NetDriver::join`]) that owns
    /// `world`.
    ///
    /// # Errors
    /// As [`NetDriver::join`].
    pub fn join(
        world: World,
        config: NetConfig,
        host: std::net::SocketAddr,
        seat: Option<usize>,
        sockets: crate::SocketFactory,
    ) -> Result<Self> {
        Self::own(world, |w| NetDriver::join(w, config, host, seat, sockets))
    }

    /// A spectator joining a running session
    /// ([`NetDriver::join_spectator`]) that owns `world`.
    ///
    /// # Errors
    /// As [`NetDriver::join_spectator`].
    pub fn join_spectator(
        world: World,
        config: NetConfig,
        host: std::net::SocketAddr,
        sockets: crate::SocketFactory,
    ) -> Result<Self> {
        Self::own(world, |w| {
            NetDriver::join_spectator(w, config, host, sockets)
        })
    }

    /// A sync test ([`NetDriver::sync_test`]) that owns `world`.
    ///
    /// # Errors
    /// As [`NetDriver::sync_test`].
    pub fn sync_test(world: World, config: NetConfig, check_distance: usize) -> Result<Self> {
        Self::own(world, |w| NetDriver::sync_test(w, config, check_distance))
    }
}

impl<I: PlayerInput, A: PeerAddr> NetSession<I, A> {
    /// Advances by one due tick ([`NetDriver::advance`]).
    ///
    /// # Errors
    /// As [`NetDriver::advance`].
    pub fn advance(&mut self) -> Result<Advance> {
        self.driver.advance(&mut self.world, &self.schedule)
    }

    /// On a P2P desync, dump the desynced tick ([`NetDriver::dump_desyncs_to`]).
    pub fn dump_desyncs_to(&mut self, prefix: impl Into<String>) {
        self.driver.dump_desyncs_to(prefix);
    }

    /// After a P2P desync, the tick and its dump ([`NetDriver::desync_dump`]).
    #[must_use]
    pub fn desync_dump(&self) -> Option<(u64, &str)> {
        self.driver.desync_dump()
    }

    /// Records the session from its start ([`NetDriver::record_to`]).
    ///
    /// # Errors
    /// As [`NetDriver::record_to`].
    pub fn record_to(
        &mut self,
        out: impl std::io::Write + 'static,
        header: laige_sim::replay::ReplayHeader,
    ) -> Result<()> {
        self.driver.record_to(out, header, &self.world)
    }

    /// Ends the session record ([`NetDriver::finish_record`]).
    ///
    /// # Errors
    /// As [`NetDriver::finish_record`].
    pub fn finish_record(&mut self) -> Result<()> {
        self.driver.finish_record()
    }

    /// Answers the peers for up to `time` without simulating
    /// ([`NetDriver::linger`]).
    pub fn linger(&mut self, time: std::time::Duration) {
        self.driver.linger(time);
    }

    /// The world (read).
    #[must_use]
    pub fn world(&self) -> &World {
        &self.world
    }

    /// The world, exclusively (push input events into its queue; do not
    /// spawn or change state outside the systems during a session).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    /// The driver, to enable epochs ([`NetDriver::host_epochs`],
    /// [`NetDriver::member_epochs`]) or read its epoch changes.
    pub fn driver_mut(&mut self) -> &mut NetDriver<I, A> {
        &mut self.driver
    }

    /// The session without its world.
    #[must_use]
    pub fn driver(&self) -> &NetDriver<I, A> {
        &self.driver
    }

    /// The counters.
    #[must_use]
    pub fn stats(&self) -> NetStats {
        self.driver.stats()
    }

    /// Why the session ended, once it has.
    #[must_use]
    pub fn end(&self) -> Option<&NetEnd<A>> {
        self.driver.end()
    }

    /// Why the session ended (consuming it; dropping a session closes its
    /// socket, which its peers see as a disconnect after their timeout).
    #[must_use]
    pub fn into_end(self) -> Option<NetEnd<A>> {
        self.driver.into_end()
    }

    /// The confirmed `(tick, state hash)` pairs, oldest first.
    #[must_use]
    pub fn confirmed_hashes(&self) -> &[(u64, u64)] {
        self.driver.confirmed_hashes()
    }
}
