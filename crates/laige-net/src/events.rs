//! Every event id laige-net raises or reports, in one place (part of the
//! public contract: tests and dashboards match on them).

use laige_core::EventId;

/// `net/config_invalid`: a [`NetConfig`](crate::NetConfig) field or a
/// player list outside its range (InvalidArgument, naming the field).
pub const CONFIG_INVALID: EventId = EventId::new("net", "config_invalid");
/// `net/session_failed`: GGRS refused to start the session or a request
/// (Failed; detail: GGRS's message).
pub const SESSION_FAILED: EventId = EventId::new("net", "session_failed");
/// `net/synchronized` (Info): the handshake with a peer finished; field
/// `peer`.
pub const SYNCHRONIZED: EventId = EventId::new("net", "synchronized");
/// `net/network_interrupted` (Warn): no packet from a peer for the notify
/// delay; fields `peer`, `disconnect_in_ms`.
pub const NETWORK_INTERRUPTED: EventId = EventId::new("net", "network_interrupted");
/// `net/network_resumed` (Info): packets from an interrupted peer again;
/// field `peer`.
pub const NETWORK_RESUMED: EventId = EventId::new("net", "network_resumed");
/// `net/disconnected` (Warn): a peer timed out or left; field `peer`. The
/// session ends with [`NetEnd::Disconnected`](crate::NetEnd) (exit code 10),
/// unless the peer was a spectator (field `spectator = true`): the players
/// play on.
pub const DISCONNECTED: EventId = EventId::new("net", "disconnected");
/// `net/desync` (Error): two peers' checksums of one confirmed tick differ;
/// fields `tick`, `peer`, `components` (the per-type hash lines that
/// differ). The session ends with exit code 11.
pub const DESYNC: EventId = EventId::new("net", "desync");
/// `net/sync_test_mismatch` (Error): a sync test re-simulated a tick and
/// got another state; fields `tick`, `report` (component and entity). The
/// session ends with exit code 11.
pub const SYNC_TEST_MISMATCH: EventId = EventId::new("net", "sync_test_mismatch");
/// `net/sync_timeout` (Error): the peers did not synchronize within
/// `NetConfig::sync_timeout`; the session ends with exit code 12.
pub const SYNC_TIMEOUT: EventId = EventId::new("net", "sync_timeout");
/// `net/record_failed` (Error): writing the session record failed (field
/// `error`); the session plays on unrecorded.
pub const RECORD_FAILED: EventId = EventId::new("net", "record_failed");
/// `net/prediction_stall` (Debug, rate-limited): the local tick waits
/// because a remote peer is a prediction window behind.
pub const PREDICTION_STALL: EventId = EventId::new("net", "prediction_stall");
/// `net/epoch_failed` (Error): the epoch control channel failed (a peer
/// closed it, a frame is malformed, the host refused) or the peers'
/// states at an epoch boundary differ; detail says which.
pub const EPOCH_FAILED: EventId = EventId::new("net", "epoch_failed");
/// `net/epoch` (Info): a new epoch began; fields `epoch`, `tick`,
/// `joined`, `left`, `snapshot_bytes`.
pub const EPOCH: EventId = EventId::new("net", "epoch");
/// `net/epoch_resync` (Warn): a member's state at an epoch boundary
/// differed from the host's (fields `tick`, `peer`, `ours`, `theirs`); the
/// host sends it its encoded world, which the member loads.
pub const EPOCH_RESYNC: EventId = EventId::new("net", "epoch_resync");
/// `net/epoch_leave_replay` (Info): at an epoch boundary this peer
/// re-simulated from a kept confirmed state (fields `boundary`, `from`,
/// `cut`) without a lost player's inputs after the tick the peers agreed
/// on; (Warn) it could not (no kept state or inputs reach back to `cut`),
/// and the host's world will replace its own.
pub const EPOCH_LEAVE_REPLAY: EventId = EventId::new("net", "epoch_leave_replay");
/// `net/datagram_dropped` (Warn, rate-limited): a received datagram was
/// dropped before GGRS saw it; fields `reason` (`damaged`: its integrity
/// tag did not verify; `unknown_peer`: it came from an address the session
/// does not send to), `peer`, `total` (of that reason so far). Counted in
/// [`NetStats`](crate::NetStats); the session plays on.
pub const DATAGRAM_DROPPED: EventId = EventId::new("net", "datagram_dropped");
/// `net/signaling_failed` (Error): a WebRTC room's signaling server could
/// not be reached or closed the connection; fields `signal` (the room's
/// URL), `why`.
pub const SIGNALING_FAILED: EventId = EventId::new("net", "signaling_failed");
/// `net/room_timeout`: a WebRTC room was not full within its timeout (the
/// error names the URL, the timeout and how many players arrived).
pub const ROOM_TIMEOUT: EventId = EventId::new("net", "room_timeout");
