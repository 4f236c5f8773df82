//! [`WebRtcTransport`]: WebRTC data channels as a [`Transport`] (feature
//! `webrtc`), so a session reaches peers in browsers, which have no UDP.
//!
//! The WebRTC stack and the signaling protocol are matchbox's
//! (`matchbox_socket`: webrtc-rs natively, the browser's own WebRTC on
//! wasm32); a room is one URL of a matchbox signaling server
//! (`ws://HOST:PORT/ROOM`). The datagrams go over one unreliable,
//! unordered data channel, addressed by matchbox's [`PeerId`]; sealed
//! ([`SealedSocket<WebRtcTransport>`](crate::SealedSocket)) they are a
//! session's GGRS socket as UDP datagrams are. Every peer orders the
//! room's seats by peer id, so all of them derive the same seat order
//! ([`WebRtcTransport::seats`]).

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Duration;

use laige_core::{Error, ErrorCode, Result, event};
use matchbox_socket::{Packet, PeerState, RtcIceServerConfig, WebRtcSocket};

pub use matchbox_socket::PeerId;

use crate::events;
use crate::input::MAX_PLAYERS;
use crate::seat::Seat;
use crate::transport::Transport;

/// The room a [`WebRtcTransport`] joins, and how long it waits for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebRtcRoom {
    /// The signaling server's room: `ws://HOST:PORT/ROOM` (`wss://` with
    /// TLS 1.3).
    pub url: String,
    /// The players in the room, this peer included (2..=4).
    pub players: usize,
    /// How long to wait for the signaling server and the other players.
    pub timeout: Duration,
    /// ICE server URLs (`stun:…`, `turn:…`); none by default: only host
    /// candidates, enough on one machine or a LAN.
    pub ice_servers: Vec<String>,
    /// The TURN servers' user name and credential, if they need one.
    pub ice_credentials: Option<(String, String)>,
}

impl WebRtcRoom {
    /// The room at `url` for `players` players, a 20 s timeout, no ICE
    /// servers.
    #[must_use]
    pub fn new(url: impl Into<String>, players: usize) -> Self {
        Self {
            url: url.into(),
            players,
            timeout: Duration::from_secs(20),
            ice_servers: Vec::new(),
            ice_credentials: None,
        }
    }

    fn validate(&self) -> Result<()> {
        if !(2..=MAX_PLAYERS).contains(&self.players) {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "players",
                self.players,
                "2..=4 players in a room",
            ));
        }
        if !(self.url.starts_with("ws://") || self.url.starts_with("wss://")) {
            return Err(Error::invalid_argument(
                events::CONFIG_INVALID,
                "signal",
                &self.url,
                "a signaling room URL ws://HOST:PORT/ROOM (or wss://)",
            ));
        }
        Ok(())
    }
}

/// A matchbox WebRTC socket's unreliable channel as a [`Transport`]
/// addressed by [`PeerId`]. Natively its message loop runs on a thread of
/// its own; on wasm32 on the page's executor.
///
/// Matchbox hands each datagram over as an owned packet: a send and a
/// received batch allocate (UDP's transport does not).
///
/// ```no_run
/// # fn main() -> laige_core::Result<()> {
/// use laige_net::{SealedSocket, SessionKey, WebRtcRoom, WebRtcTransport};
/// let transport = WebRtcTransport::connect(&WebRtcRoom::new("ws://127.0.0.1:3536/demo", 2))?;
/// let seats = transport.seats();
/// let socket = SealedSocket::new(transport, SessionKey::PUBLIC);
/// // NetSession::p2p(world, config, &seats, socket)
/// # let _ = (seats, socket);
/// # Ok(())
/// # }
/// ```
pub struct WebRtcTransport {
    socket: WebRtcSocket,
    room: WebRtcRoom,
    /// Received datagrams not yet taken by `recv_from`.
    inbox: VecDeque<(PeerId, Packet)>,
    /// The message loop's end (its error, if it failed).
    loop_end: mpsc::Receiver<std::result::Result<(), String>>,
    ended: Option<std::result::Result<(), String>>,
    id: Option<PeerId>,
    /// Connected peers, in the order they connected.
    peers: Vec<PeerId>,
    /// Peers whose connection closed.
    left: Vec<PeerId>,
    started: web_time::Instant,
}

impl std::fmt::Debug for WebRtcTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebRtcTransport")
            .field("room", &self.room.url)
            .field("id", &self.id)
            .field("peers", &self.peers)
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl WebRtcTransport {
    /// Opens `room` and starts the socket's message loop; returns at once
    /// (poll [`connected`](Self::connected) until the room is full, or use
    /// [`connect`](Self::connect) natively).
    ///
    /// # Errors
    /// `net/config_invalid` for a room URL that is not `ws://`/`wss://`
    /// or a player count outside 2..=4.
    pub fn open(room: &WebRtcRoom) -> Result<Self> {
        room.validate()?;
        let ice = RtcIceServerConfig {
            urls: room.ice_servers.clone(),
            username: room.ice_credentials.as_ref().map(|c| c.0.clone()),
            credential: room.ice_credentials.as_ref().map(|c| c.1.clone()),
        };
        let (socket, message_loop) = WebRtcSocket::builder(room.url.clone())
            .ice_server(ice)
            // One attempt: an absent server is an error now, not after
            // matchbox's 3 s retries.
            .reconnect_attempts(Some(1))
            .add_unreliable_channel()
            .build();
        let (tx, loop_end) = mpsc::channel();
        let run = async move {
            let end = message_loop.await.map_err(|e| e.to_string());
            let _ = tx.send(end);
        };
        spawn_loop(run)?;
        Ok(Self {
            socket,
            room: room.clone(),
            inbox: VecDeque::new(),
            loop_end,
            ended: None,
            id: None,
            peers: Vec::new(),
            left: Vec::new(),
            started: web_time::Instant::now(),
        })
    }

    /// Opens `room` and waits until this peer has its id and the room's
    /// other players are connected (natively: it blocks, polling every
    /// 5 ms).
    ///
    /// # Errors
    /// As [`open`](Self::open) and [`connected`](Self::connected).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn connect(room: &WebRtcRoom) -> Result<Self> {
        let mut t = Self::open(room)?;
        while !t.connected()? {
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(t)
    }

    /// Whether the room is full: this peer has its id from the signaling
    /// server and `players - 1` peers are connected. Also reads peers that
    /// connected or left since the last call.
    ///
    /// # Errors
    /// `net/signaling_failed` when the signaling server cannot be reached
    /// or closed the connection (the URL and matchbox's reason);
    /// `net/room_timeout` when the room is not full within the room's
    /// timeout (the URL, the timeout and how many peers arrived).
    pub fn connected(&mut self) -> Result<bool> {
        self.update();
        if let Some(Err(why)) = &self.ended {
            return Err(Error::new(ErrorCode::Io, events::SIGNALING_FAILED)
                .with_field("signal")
                .with_value(&self.room.url)
                .with_detail(format!(
                    "the signaling server is not there or closed: {why}"
                )));
        }
        if self.id.is_some() && self.peers.len() + 1 >= self.room.players {
            return Ok(true);
        }
        if self.started.elapsed() > self.room.timeout {
            let arrived = self.peers.len() + usize::from(self.id.is_some());
            return Err(Error::new(ErrorCode::Failed, events::ROOM_TIMEOUT)
                .with_field("signal")
                .with_value(&self.room.url)
                .with_detail(format!(
                    "{arrived} of {} players in the room after {} ms ({})",
                    self.room.players,
                    self.room.timeout.as_millis(),
                    if self.id.is_some() {
                        "the signaling server answered"
                    } else {
                        "no answer from the signaling server"
                    }
                )));
        }
        Ok(false)
    }

    /// This peer's id (once the signaling server gave it).
    #[must_use]
    pub fn id(&self) -> Option<PeerId> {
        self.id
    }

    /// Peers whose connection closed (they left the room or their data
    /// channel broke); the session notices them by its disconnect
    /// timeout.
    #[must_use]
    pub fn left(&self) -> &[PeerId] {
        &self.left
    }

    /// The session's seats: the room's players (this peer and the
    /// connected ones) ordered by peer id, so every peer of the room
    /// derives the same order; this peer's seat is [`Seat::Local`].
    #[must_use]
    pub fn seats(&self) -> Vec<Seat<PeerId>> {
        let mut ids: Vec<PeerId> = self.peers.iter().copied().chain(self.id).collect();
        ids.sort_unstable();
        ids.into_iter()
            .map(|p| {
                if Some(p) == self.id {
                    Seat::Local
                } else {
                    Seat::Remote(p)
                }
            })
            .collect()
    }

    /// Reads the socket's id, its peers' changes and the loop's end.
    fn update(&mut self) {
        if self.id.is_none() {
            self.id = self.socket.id();
        }
        if self.ended.is_none()
            && let Ok(end) = self.loop_end.try_recv()
        {
            if let Err(why) = &end {
                event!(
                    Error,
                    events::SIGNALING_FAILED,
                    signal = self.room.url.as_str(),
                    why = why.as_str()
                );
            }
            self.ended = Some(end);
        }
        let Ok(changes) = self.socket.try_update_peers() else {
            return;
        };
        for (peer, state) in changes {
            match state {
                PeerState::Connected => {
                    if !self.peers.contains(&peer) {
                        self.peers.push(peer);
                    }
                }
                PeerState::Disconnected => {
                    self.peers.retain(|p| *p != peer);
                    if !self.left.contains(&peer) {
                        self.left.push(peer);
                        event!(Warn, events::DISCONNECTED, peer = %peer, webrtc = true);
                    }
                }
            }
        }
    }
}

impl Drop for WebRtcTransport {
    /// Closes the data channels (the peers see the connection close).
    fn drop(&mut self) {
        self.socket.close();
    }
}

impl Transport for WebRtcTransport {
    type Addr = PeerId;

    fn send_to(&mut self, datagram: &[u8], to: &PeerId) {
        // A closed socket loses the datagram (the session times out).
        let _ = self
            .socket
            .channel_mut(0)
            .try_send(Packet::copy_from_slice(datagram), *to);
    }

    fn recv_from(&mut self, buf: &mut [u8]) -> Option<(usize, PeerId)> {
        if self.inbox.is_empty() {
            self.inbox.extend(self.socket.channel_mut(0).receive());
            if self.inbox.is_empty() {
                // Nothing waiting: read the peers' changes meanwhile (one
                // call per poll, not per datagram).
                self.update();
                return None;
            }
        }
        let (from, packet) = self.inbox.pop_front()?;
        let len = packet.len().min(buf.len());
        buf[..len].copy_from_slice(&packet[..len]);
        Some((len, from))
    }
}

/// Runs the socket's message loop natively on a thread of its own.
#[cfg(not(target_arch = "wasm32"))]
fn spawn_loop(run: impl std::future::Future<Output = ()> + Send + 'static) -> Result<()> {
    std::thread::Builder::new()
        .name("laige-webrtc".into())
        .spawn(move || futures_executor::block_on(run))
        .map(drop)
        .map_err(|e| {
            Error::new(ErrorCode::Io, events::SIGNALING_FAILED)
                .with_detail(format!("the WebRTC message loop's thread: {e}"))
        })
}

/// Runs the socket's message loop on the page's executor.
#[cfg(target_arch = "wasm32")]
#[allow(
    clippy::unnecessary_wraps,
    reason = "the same signature as the native spawn, which can fail"
)]
fn spawn_loop(run: impl std::future::Future<Output = ()> + 'static) -> Result<()> {
    wasm_bindgen_futures::spawn_local(run);
    Ok(())
}
