//! Record a run, replay it: the engine's side of `laige_sim::replay`.
//!
//! * **Record**: [`EngineBuilder::record`](crate::EngineBuilder::record)
//!   writes a replay file while the run goes on: the header (backend,
//!   seed, the config hash of [`config_hash`], the engine version), the
//!   state hash after setup (tick 0), then after every completed tick the
//!   events the systems saw — with their tick and their sub-tick running
//!   time, in delivery order ([`encode_tick_input`]) — and the state hash
//!   when the header's interval makes one due. Each record is flushed as it
//!   is written: a run that is killed leaves a readable prefix. What was
//!   written is [`RunReport::recording`](crate::RunReport::recording).
//!   [`EngineBuilder::record_in_memory`](crate::EngineBuilder::record_in_memory)
//!   writes the same bytes into memory instead (a page, which has no
//!   files: [`Recorded::bytes`]).
//! * **Replay**: [`Engine::replay`](crate::Engine::replay) re-runs a file
//!   headless and unpaced through the same game, on the recorded backend
//!   and seed: every recorded event is queued for its recorded tick with
//!   its recorded time ([`ScriptAt::Exact`]), so a system that reads
//!   `time_ns` sees exactly what it saw when recorded; the actions the
//!   game raises from its callbacks during playback are dropped (the
//!   recording holds them already). After every tick the state hash is
//!   compared with the recorded one: [`ReplayReport`] names the first
//!   differing tick. [`Engine::replay_bytes`](crate::Engine::replay_bytes)
//!   plays a recording held in memory (a page's fetched or chosen file).
//!
//! Verification is strict: a file whose due hash is missing is damage (the
//! reader refuses it), a playback that compared no hash is
//! [`ReplayOutcome::NotVerified`] (never "verified"), and a torn file
//! (a recording cut short) plays its valid prefix and says so
//! ([`ReplayOutcome::Torn`]).
//!
//! Sequence numbers are not recorded: playback pushes the events of a
//! tick in their recorded delivery order, so the order, the ticks and the
//! times are the recorded ones and `seq` is the playback queue's own
//! counter.

use std::cell::RefCell;
use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use laige_core::{Error, MathBackend, Result};
use laige_sim::StateHasher;
use laige_sim::World;
use laige_sim::input::{
    ButtonState, CoordSpace, InputEvent, InputKind, InputPoint, KeyCode, MouseButton, ScriptAt,
};
use laige_sim::replay::{
    self, Divergence, ENGINE_VERSION, Replay, ReplayHeader, ReplayPrefix, ReplayRecorder,
};
use laige_sim::snapshot::SnapshotRing;

use crate::game::{Control, EngineScalar, Game, GameWrapper};
use crate::report::{EXIT_REPLAY_DIVERGED, EXIT_REPLAY_TORN, RunReport};
use crate::{EngineConfig, EngineOptions, Pacing, RunLimit};

/// The version of the tick-input encoding ([`encode_tick_input`]), the
/// first byte of every input record the engine writes. A decoder refuses
/// any other version (`replay/input_invalid`), so a future encoding is
/// never misread.
pub const TICK_INPUT_VERSION: u8 = 1;

/// The smallest encoded event: time (8) + tag (1) + the smallest kind (3).
const MIN_EVENT_BYTES: usize = 12;

/// The replay config hash of a run of `config`: the tick rate (which fixes
/// what a tick is) and the game's own `identity` (what else shapes its
/// simulation: an entity count, a level; 0 when nothing does;
/// [`EngineBuilder::replay_identity`](crate::EngineBuilder::replay_identity)).
/// Backend and seed are header fields of their own.
#[must_use]
pub fn config_hash(config: &EngineConfig, identity: u64) -> u64 {
    let mut h = StateHasher::default();
    h.write_bytes(b"laige-engine");
    h.write_u32(config.game_loop.tick_rate_hz);
    h.write_u64(identity);
    h.finish()
}

/// Appends one tick's events in the engine's stable encoding, version
/// [`TICK_INPUT_VERSION`]: the version byte, a `u32` count, then per event
/// its running time `time_ns` (`i64`) and its kind — a tag byte (0 key,
/// 1 pointer move, 2 mouse button, 3 action) and the fields in declaration
/// order: key and button codes `u16`, button states one byte (1 pressed,
/// 0 released), points two `i32` (Q24.8) and a space byte (0 window,
/// 1 world), action ids `u32` and values `i32`. Little-endian throughout.
/// Allocates only to grow `out`.
pub fn encode_tick_input(events: &[InputEvent], out: &mut Vec<u8>) {
    out.push(TICK_INPUT_VERSION);
    out.extend_from_slice(
        &u32::try_from(events.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    for ev in events {
        out.extend_from_slice(&ev.time_ns.to_le_bytes());
        match ev.kind {
            InputKind::Key { key, state } => {
                out.push(0);
                out.extend_from_slice(&key.0.to_le_bytes());
                out.push(state_byte(state));
            }
            InputKind::MouseMove { position, space } => {
                out.push(1);
                point(out, position, space);
            }
            InputKind::MouseButton {
                button,
                state,
                position,
                space,
            } => {
                out.push(2);
                out.extend_from_slice(&button.0.to_le_bytes());
                out.push(state_byte(state));
                point(out, position, space);
            }
            InputKind::Action { id, value } => {
                out.push(3);
                out.extend_from_slice(&id.to_le_bytes());
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
    }
}

fn state_byte(s: ButtonState) -> u8 {
    match s {
        ButtonState::Pressed => 1,
        ButtonState::Released => 0,
    }
}

fn point(out: &mut Vec<u8>, p: InputPoint, space: CoordSpace) {
    out.extend_from_slice(&p.x.to_le_bytes());
    out.extend_from_slice(&p.y.to_le_bytes());
    out.push(match space {
        CoordSpace::Window => 0,
        CoordSpace::World => 1,
    });
}

/// Decodes one tick's events as `(time_ns, kind)`, in recorded order.
///
/// # Errors
/// `replay/input_invalid` (Corrupt) for bytes [`encode_tick_input`] did not
/// write, naming what is wrong (the version, a count the bytes cannot
/// hold, a tag, a cut event, trailing bytes).
pub fn decode_tick_input(bytes: &[u8]) -> Result<Vec<(i64, InputKind)>> {
    let bad = |what: &'static str| {
        replay::input_invalid(
            "engine tick input",
            format!("{} bytes ({what})", bytes.len()),
            "the version-1 encoding of laige_engine::record::encode_tick_input",
        )
    };
    let mut rest = bytes;
    let mut take = |n: usize, what: &'static str| -> Result<&[u8]> {
        if rest.len() < n {
            return Err(bad(what));
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    let arr = |b: &[u8]| -> [u8; 8] {
        let mut a = [0_u8; 8];
        a[..b.len()].copy_from_slice(b);
        a
    };
    let u16_of = |b: &[u8]| u16::from_le_bytes([b[0], b[1]]);
    let i32_of = |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let state_of = |b: u8| match b {
        1 => Ok(ButtonState::Pressed),
        0 => Ok(ButtonState::Released),
        _ => Err(bad("button state")),
    };
    let space_of = |b: u8| match b {
        0 => Ok(CoordSpace::Window),
        1 => Ok(CoordSpace::World),
        _ => Err(bad("coordinate space")),
    };
    if take(1, "version")?[0] != TICK_INPUT_VERSION {
        return Err(bad("unknown encoding version"));
    }
    let c = take(4, "count")?;
    let n = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize;
    // A count the bytes cannot hold is damage, not an allocation request.
    if n > bytes.len() / MIN_EVENT_BYTES {
        return Err(bad("event count"));
    }
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let time_ns = i64::from_le_bytes(arr(take(8, "time")?));
        let kind = match take(1, "tag")?[0] {
            0 => {
                let b = take(3, "key")?;
                InputKind::Key {
                    key: KeyCode(u16_of(b)),
                    state: state_of(b[2])?,
                }
            }
            1 => {
                let b = take(9, "pointer move")?;
                InputKind::MouseMove {
                    position: InputPoint {
                        x: i32_of(&b[0..4]),
                        y: i32_of(&b[4..8]),
                    },
                    space: space_of(b[8])?,
                }
            }
            2 => {
                let b = take(12, "mouse button")?;
                InputKind::MouseButton {
                    button: MouseButton(u16_of(b)),
                    state: state_of(b[2])?,
                    position: InputPoint {
                        x: i32_of(&b[3..7]),
                        y: i32_of(&b[7..11]),
                    },
                    space: space_of(b[11])?,
                }
            }
            3 => {
                let b = take(8, "action")?;
                InputKind::Action {
                    id: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    value: i32_of(&b[4..8]),
                }
            }
            _ => return Err(bad("event tag")),
        };
        out.push((time_ns, kind));
    }
    if !rest.is_empty() {
        return Err(bad("trailing bytes"));
    }
    Ok(out)
}

/// The script that plays `replay`'s events back exactly: each at its
/// recorded tick and time ([`ScriptAt::Exact`]), in recorded order.
///
/// # Errors
/// An input record that does not decode (`replay/input_invalid`, naming
/// its tick).
pub fn playback_script(replay: &Replay) -> Result<Vec<(ScriptAt, InputKind)>> {
    let mut script = Vec::new();
    for tick in 0..replay.ticks() {
        let bytes = replay.input(tick).unwrap_or(&[]);
        let events = decode_tick_input(bytes).map_err(|e| {
            Error::new(e.code(), e.id())
                .with_field("tick")
                .with_value(tick)
                .with_detail(e.to_string())
        })?;
        script.extend(
            events
                .into_iter()
                .map(|(time_ns, k)| (ScriptAt::Exact { tick, time_ns }, k)),
        );
    }
    Ok(script)
}

/// What a recorded run wrote ([`RunReport::recording`](crate::RunReport::recording)).
#[derive(Debug)]
pub struct Recorded {
    /// The replay file; `None` for a recording in memory.
    pub path: Option<PathBuf>,
    /// The recording's bytes (a recording in memory,
    /// [`EngineBuilder::record_in_memory`](crate::EngineBuilder::record_in_memory));
    /// empty for a file.
    pub bytes: Vec<u8>,
    /// Ticks recorded (input records written).
    pub ticks: u64,
    /// The first write error, if any: recording stopped there and the file
    /// holds the records before it (a torn prefix, no end record).
    pub error: Option<Error>,
}

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let into = self.path.as_ref().map_or_else(
            || format!("memory ({} bytes)", self.bytes.len()),
            |p| p.display().to_string(),
        );
        match &self.error {
            None => write!(f, "recorded {} ticks to {into}", self.ticks),
            Some(e) => write!(
                f,
                "recording to {into} stopped after {} ticks: {e}",
                self.ticks
            ),
        }
    }
}

/// Where a run is recorded.
#[derive(Clone, Debug)]
pub(crate) enum RecordTarget {
    /// A replay file ([`EngineBuilder::record`](crate::EngineBuilder::record)).
    File(PathBuf),
    /// Memory ([`EngineBuilder::record_in_memory`](crate::EngineBuilder::record_in_memory)).
    Memory,
}

/// The recorder's sink: the replay file, or the bytes in memory.
enum Sink {
    File(BufWriter<File>),
    Memory(Vec<u8>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Self::File(f) => f.write(buf),
            Self::Memory(v) => v.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Self::File(f) => f.write_all(buf),
            Self::Memory(v) => v.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Self::File(f) => f.flush(),
            Self::Memory(_) => Ok(()),
        }
    }
}

/// Where a run that finishes inside the session's shutdown (a page's run:
/// its report goes to a callback) leaves what it recorded.
pub(crate) type RecordedSlot = Rc<RefCell<Option<Recorded>>>;

/// The game, recording its run (see the module docs); every hook it does
/// not add to forwards ([`GameWrapper`]).
pub(crate) struct Recording<G> {
    inner: G,
    /// The file; `None` in memory.
    path: Option<PathBuf>,
    recorder: Option<ReplayRecorder<Sink>>,
    /// Set: the recording is finished in [`Game::finish`] and left here
    /// (a page's run); unset: the caller finishes it after the run.
    slot: Option<RecordedSlot>,
    buf: Vec<u8>,
    ticks: u64,
    error: Option<Error>,
    /// A write failed and the run has not been told yet (at the next
    /// frame, through `Control::fail`): what failed, without the path.
    unreported: Option<String>,
    /// Whether the state after setup (tick 0) is in the file.
    hashed_setup: bool,
    /// The one-slot ring keyframes are saved and encoded through (made at
    /// the first keyframe, reused after).
    keyframe_ring: Option<SnapshotRing>,
    /// A keyframe's encoded bytes (grown once, reused).
    keyframe_buf: Vec<u8>,
}

impl<G: Game> Recording<G> {
    /// Creates `target` (a file, or the bytes in memory) and writes the
    /// header of a run of `config`.
    pub(crate) fn create(
        inner: G,
        target: RecordTarget,
        config: &EngineConfig,
        identity: u64,
    ) -> Result<Self> {
        let mut header = ReplayHeader::new(
            config.determinism.math,
            config.determinism.seed,
            config_hash(config, identity),
        );
        header.keyframe_interval = config.replay.keyframe_interval;
        let (path, sink) = match target {
            RecordTarget::File(path) => {
                header.validate()?;
                let file = File::create(&path).map_err(|e| {
                    Error::new(laige_core::ErrorCode::Io, laige_sim::events::IO_FAILED)
                        .with_field("path")
                        .with_value(path.display())
                        .with_detail("creating the replay file")
                        .with_source(e)
                })?;
                (Some(path), Sink::File(BufWriter::new(file)))
            }
            RecordTarget::Memory => (None, Sink::Memory(Vec::new())),
        };
        Ok(Self {
            inner,
            path,
            recorder: Some(ReplayRecorder::new(sink, header)?),
            slot: None,
            // Grown once to a busy tick's events; reused after.
            buf: Vec::with_capacity(4096),
            ticks: 0,
            error: None,
            unreported: None,
            hashed_setup: false,
            keyframe_ring: None,
            keyframe_buf: Vec::new(),
        })
    }

    /// Writes the keyframe of `completed` ticks when one is due: the world
    /// saved into the reused ring slot and encoded into the reused buffer
    /// (the snapshot byte format), then one record.
    fn keyframe(&mut self, world: &World, completed: u64) -> Result<()> {
        let Some(r) = &mut self.recorder else {
            return Ok(());
        };
        if !r.wants_keyframe(completed) {
            return Ok(());
        }
        // A keyframe is every `keyframe_interval` ticks, off the per-tick
        // path: its first one makes the ring and grows the buffer, and an
        // encode reserves its archetype scratch.
        #[cfg(debug_assertions)]
        let _keyframe = laige_core::alloc_watch::suspend();
        let ring = match &mut self.keyframe_ring {
            Some(ring) => ring,
            None => self.keyframe_ring.insert(SnapshotRing::new(world, 1)?),
        };
        ring.save(0, world)?;
        self.keyframe_buf.clear();
        ring.encode(0, world, &mut self.keyframe_buf)?;
        r.record_keyframe(completed, &self.keyframe_buf)
    }

    /// Writes the end record (when recording did not stop early).
    pub(crate) fn finish(mut self) -> Recorded {
        self.finish_in_place()
    }

    /// [`finish`](Self::finish) in place (once: later calls report no
    /// ticks and no bytes). A recording in memory whose write failed keeps
    /// no bytes (there is nothing to offer but the error).
    fn finish_in_place(&mut self) -> Recorded {
        let mut bytes = Vec::new();
        match self.recorder.take().map(ReplayRecorder::finish) {
            Some(Ok(Sink::Memory(v))) => bytes = v,
            Some(Ok(Sink::File(_))) | None => {}
            Some(Err(e)) => self.fail(e),
        }
        Recorded {
            path: self.path.clone(),
            bytes,
            ticks: self.ticks,
            error: self.error.take(),
        }
    }

    /// A write failed (a full disk, an I/O error): recording stops there
    /// (the file holds every record before it, each flushed when written)
    /// and the run is ended at its next frame with this error, which names
    /// the file, the tick and the OS error (logged once, by the engine's
    /// `engine/system_failed`). A failure writing the end record, after
    /// the run, is logged here.
    #[cold]
    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            // What failed (the tick, the record, the OS error), without
            // the id and code the new error repeats.
            let text = e.to_string();
            let what = text
                .strip_prefix(&format!("{}: {}: ", e.id(), e.code()))
                .unwrap_or(&text)
                .to_owned();
            self.error = Some(self.naming_path(&e, &what));
            self.unreported = Some(what);
        }
        self.recorder = None;
    }

    /// The failure `what` of `e`, with the recording's path as its field.
    fn naming_path(&self, e: &Error, what: &str) -> Error {
        Error::new(e.code(), e.id())
            .with_field("record")
            .with_value(self.path.as_ref().map_or_else(
                || "memory".to_owned(),
                |p| Error::quoted(&p.display().to_string()),
            ))
            .with_detail(format!("recording stopped at {what}"))
    }

    /// Records the state hash of tick 0 once (the first frame's world, or
    /// the final one of a run that ended before its first frame).
    fn hash_setup(&mut self, world: &World) {
        if self.hashed_setup || world.tick() != 0 {
            return;
        }
        self.hashed_setup = true;
        if let Some(r) = &mut self.recorder
            && r.wants_hash(0)
            && let Err(e) = r.record_hash(0, world.state_hash())
        {
            self.fail(e);
        }
        if let Err(e) = self.keyframe(world, 0) {
            self.fail(e);
        }
    }
}

impl<G: Game> GameWrapper for Recording<G> {
    type Inner = G;

    fn inner(&self) -> &G {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut G {
        &mut self.inner
    }

    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        self.hash_setup(world);
        if let Some(what) = self.unreported.take()
            && let Some(e) = &self.error
        {
            control.fail(self.naming_path(e, &what));
        }
        self.inner.on_frame::<S>(world, control);
    }

    fn finish<S: EngineScalar>(&mut self, world: &World, report: &RunReport) {
        // A run a signal ended before its first frame: its world is still
        // the state after setup, so the file holds a verifiable tick 0.
        self.hash_setup(world);
        self.inner.finish::<S>(world, report);
        if let Some(slot) = self.slot.take() {
            let recorded = self.finish_in_place();
            *slot.borrow_mut() = Some(recorded);
        }
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        self.inner.on_tick::<S>(world, tick);
        let Some(r) = &mut self.recorder else {
            return;
        };
        self.buf.clear();
        encode_tick_input(world.input().delivered(), &mut self.buf);
        let result = r
            .record_input_bytes(tick - 1, &self.buf)
            .and_then(|()| {
                if r.wants_hash(tick) {
                    r.record_hash(tick, world.state_hash())
                } else {
                    Ok(())
                }
            })
            .and_then(|()| self.keyframe(world, tick));
        match result {
            Ok(()) => self.ticks = tick,
            Err(e) => self.fail(e),
        }
    }
}

/// Runs `parts` with its game recorded to `path` (`run` is the plain run
/// of the wrapped engine), and puts what was written into the report.
pub(crate) fn run_recorded<G: Game>(
    parts: crate::EngineBuilder<G>,
    target: RecordTarget,
    run: impl FnOnce(crate::Engine<&mut Recording<G>>) -> Result<RunReport>,
) -> Result<RunReport> {
    parts.config.validate()?;
    let mut recording =
        Recording::create(parts.game, target, &parts.config, parts.replay_identity)?;
    let engine = crate::Engine {
        parts: crate::EngineBuilder {
            game: &mut recording,
            config: parts.config,
            registrations: parts.registrations,
            script: parts.script,
            options: parts.options,
            record: None,
            replay_identity: parts.replay_identity,
            net: parts.net,
        },
    };
    let mut report = run(engine)?;
    report.recording = Some(recording.finish());
    Ok(report)
}

/// `parts`'s game wrapped to record into `target` and leave what it
/// recorded in the returned slot when the session's shutdown finishes the
/// game (a page's run, whose report goes to a callback).
#[cfg_attr(
    not(all(feature = "web", target_arch = "wasm32")),
    expect(
        dead_code,
        reason = "only a page's run finishes a recording in its shutdown"
    )
)]
pub(crate) fn recorded_in_shutdown<G: Game>(
    parts: crate::EngineBuilder<G>,
    target: RecordTarget,
) -> Result<(crate::Engine<Recording<G>>, RecordedSlot)> {
    parts.config.validate()?;
    let mut recording =
        Recording::create(parts.game, target, &parts.config, parts.replay_identity)?;
    let slot = RecordedSlot::default();
    recording.slot = Some(Rc::clone(&slot));
    let engine = crate::Engine {
        parts: crate::EngineBuilder {
            game: recording,
            config: parts.config,
            registrations: parts.registrations,
            script: parts.script,
            options: parts.options,
            record: None,
            replay_identity: parts.replay_identity,
            net: parts.net,
        },
    };
    Ok((engine, slot))
}

/// How a replay's playback ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayOutcome {
    /// A complete file: every recorded state hash was reached and matched.
    Verified {
        /// Ticks played.
        ticks: u64,
        /// State hashes compared (all of the file's).
        matched: u64,
    },
    /// A torn file: its prefix's hashes all matched, ticks
    /// `0..verified_ticks` are verified; nothing after tick
    /// `torn_after_tick` exists.
    Torn {
        /// The ticks the prefix holds.
        torn_after_tick: u64,
        /// The completed tick count of the last matching hash.
        verified_ticks: u64,
        /// State hashes compared.
        matched: u64,
    },
    /// A recorded hash differs: the first differing tick.
    Diverged(Divergence),
    /// The playback ended before some recorded hash, or compared none.
    NotVerified {
        /// State hashes compared and matched.
        matched: u64,
        /// State hashes the file holds.
        recorded: u64,
    },
}

impl ReplayOutcome {
    /// The process exit code: 0, [`EXIT_REPLAY_TORN`] or
    /// [`EXIT_REPLAY_DIVERGED`] (also for "not verified").
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Verified { .. } => 0,
            Self::Torn { .. } => EXIT_REPLAY_TORN,
            Self::Diverged(_) | Self::NotVerified { .. } => EXIT_REPLAY_DIVERGED,
        }
    }

    /// Whether every state hash of a complete file matched.
    #[must_use]
    pub fn is_verified(&self) -> bool {
        matches!(self, Self::Verified { .. })
    }
}

impl fmt::Display for ReplayOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Verified { ticks, matched } => write!(
                f,
                "replay verified: {ticks} ticks, {matched} state hashes match"
            ),
            Self::Torn {
                torn_after_tick,
                verified_ticks,
                matched,
            } => write!(
                f,
                "replay torn after tick {torn_after_tick}; verified ticks 0..{verified_ticks} \
                 ({matched} state hashes match; the recording has no end record)"
            ),
            Self::Diverged(d) => write!(f, "{d}"),
            Self::NotVerified { matched: 0, .. } => write!(
                f,
                "replay not verified: the playback compared no state hash"
            ),
            Self::NotVerified { matched, recorded } => write!(
                f,
                "replay not verified: the playback ended before the recording's last \
                 checkpoint ({matched} of {recorded} matched)"
            ),
        }
    }
}

/// What [`Engine::replay`](crate::Engine::replay) returns: the playback
/// run's report and the verdict.
#[derive(Debug)]
pub struct ReplayReport {
    /// The playback run (headless, unpaced, on the recorded backend).
    pub run: RunReport,
    /// The verdict.
    pub outcome: ReplayOutcome,
    /// The recorded backend.
    pub backend: MathBackend,
    /// The recorded seed.
    pub seed: u64,
    /// The damage that tore the file (a torn file only).
    pub damage: Option<Error>,
}

impl ReplayReport {
    /// The process exit code: the playback run's when it failed by itself
    /// (a failing system), else the outcome's.
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        if !matches!(self.outcome, ReplayOutcome::Diverged(_)) && self.run.exit_code() != 0 {
            return self.run.exit_code();
        }
        self.outcome.exit_code()
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}, seed {})", self.outcome, self.backend, self.seed)
    }
}

/// The game, checked against a replay's hashes during playback (see the
/// module docs).
pub(crate) struct Verifying<G> {
    inner: G,
    checkpoints: Vec<(u64, u64)>,
    next: usize,
    matched: u64,
    last_match: Option<u64>,
    divergence: Option<Divergence>,
}

impl<G> Verifying<G> {
    fn new(inner: G, replay: &Replay) -> Self {
        Self {
            inner,
            checkpoints: replay.checkpoints().collect(),
            next: 0,
            matched: 0,
            last_match: None,
            divergence: None,
        }
    }

    fn outcome(&self, ticks: u64, torn: bool) -> ReplayOutcome {
        let recorded = self.checkpoints.len() as u64;
        let complete = self.divergence.is_none() && self.next == self.checkpoints.len();
        match (self.divergence, self.last_match) {
            (Some(d), _) => ReplayOutcome::Diverged(d),
            (None, Some(verified_ticks)) if complete && torn => ReplayOutcome::Torn {
                torn_after_tick: ticks,
                verified_ticks,
                matched: self.matched,
            },
            (None, Some(_)) if complete => ReplayOutcome::Verified {
                ticks,
                matched: self.matched,
            },
            _ => ReplayOutcome::NotVerified {
                matched: self.matched,
                recorded,
            },
        }
    }

    fn check(&mut self, world: &World, tick: u64) {
        if self.divergence.is_some() {
            return;
        }
        let Some(&(at, recorded)) = self.checkpoints.get(self.next) else {
            return;
        };
        if at != tick {
            return;
        }
        self.next += 1;
        let replayed = world.state_hash();
        if replayed == recorded {
            self.matched += 1;
            self.last_match = Some(tick);
        } else {
            let last_match = self.next.checked_sub(2).map(|i| self.checkpoints[i].0);
            self.divergence = Some(Divergence {
                tick,
                recorded,
                replayed,
                last_match,
            });
        }
    }
}

impl<G: Game> GameWrapper for Verifying<G> {
    type Inner = G;

    fn inner(&self) -> &G {
        &self.inner
    }

    fn inner_mut(&mut self) -> &mut G {
        &mut self.inner
    }

    fn on_input<S: EngineScalar>(&mut self, event: &InputEvent, control: &mut Control) {
        self.inner.on_input::<S>(event, control);
        control.drop_actions();
    }

    fn on_frame<S: EngineScalar>(&mut self, world: &World, control: &mut Control) {
        if world.tick() == 0 {
            self.check(world, 0);
        }
        self.inner.on_frame::<S>(world, control);
        // The recording holds the actions the game raised; raising them
        // again would deliver them twice.
        control.drop_actions();
        if self.divergence.is_some() {
            control.exit();
        }
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        self.inner.on_tick::<S>(world, tick);
        self.check(world, tick);
    }
}

impl<G: Game> crate::Engine<G> {
    /// Plays the replay at `path` back through this engine's game, headless
    /// and unpaced, on the recorded backend and seed (the rest of the
    /// configuration is this engine's), and compares the state hash with
    /// every recorded one (see the [`record`](crate::record) module docs).
    /// The builder's scripted input is replaced by the recording's.
    ///
    /// # Errors
    /// Before the playback: `replay/io_failed` (no file), `replay/corrupt`
    /// (damage inside the file — a torn end is not an error, it is
    /// [`ReplayOutcome::Torn`]), `replay/identity_mismatch` (another tick
    /// rate, identity or engine version: the field is named), an input
    /// record that does not decode, or whatever
    /// [`run_headless`](Self::run_headless) returns before its start.
    pub fn replay(self, path: impl AsRef<Path>) -> Result<ReplayReport> {
        self.install_log_subscriber()?;
        let prefix = Replay::read_prefix(path)?;
        self.replay_prefix(prefix)
    }

    /// [`replay`](Self::replay) of a recording held in memory (a page's:
    /// fetched from its server or read from a chosen file).
    ///
    /// # Errors
    /// As [`replay`](Self::replay), without the file's `replay/io_failed`.
    pub fn replay_bytes(self, bytes: &[u8]) -> Result<ReplayReport> {
        self.install_log_subscriber()?;
        let prefix = Replay::parse_prefix(bytes)?;
        self.replay_prefix(prefix)
    }

    fn replay_prefix(self, prefix: ReplayPrefix) -> Result<ReplayReport> {
        let (replay, damage) = prefix.into_playable()?;
        // Damage is only ever returned for a torn file.
        let torn = damage.is_some();
        let mut parts = self.parts;
        let (backend, seed) = (replay.header().backend, replay.header().seed);
        parts.config.determinism.math = backend;
        parts.config.determinism.seed = seed;
        replay.header().check_compatible(
            backend,
            config_hash(&parts.config, parts.replay_identity),
            ENGINE_VERSION,
        )?;
        let script = playback_script(&replay)?;
        let mut verifying = Verifying::new(parts.game, &replay);
        let run = crate::EngineBuilder {
            game: &mut verifying,
            config: parts.config,
            registrations: parts.registrations,
            script,
            options: EngineOptions {
                pacing: Pacing::Unpaced,
                headless_render: crate::HeadlessRender::Off,
                ..parts.options
            },
            record: None,
            replay_identity: parts.replay_identity,
            net: Default::default(),
        }
        .build()?
        .run_headless_now(RunLimit::Ticks(replay.ticks()))?;
        let outcome = verifying.outcome(replay.ticks(), torn);
        Ok(ReplayReport {
            run,
            outcome,
            backend,
            seed,
            damage,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(time_ns: i64, kind: InputKind) -> InputEvent {
        InputEvent {
            tick: 0,
            time_ns,
            seq: 0,
            kind,
        }
    }

    #[test]
    fn events_round_trip_and_damage_is_refused() {
        let events = [
            ev(
                5,
                InputKind::Key {
                    key: KeyCode::B,
                    state: ButtonState::Pressed,
                },
            ),
            ev(
                -7,
                InputKind::MouseMove {
                    position: InputPoint { x: -3, y: 1 << 20 },
                    space: CoordSpace::World,
                },
            ),
            ev(
                9,
                InputKind::MouseButton {
                    button: MouseButton::RIGHT,
                    state: ButtonState::Released,
                    position: InputPoint { x: 1, y: 2 },
                    space: CoordSpace::Window,
                },
            ),
            ev(i64::MAX, InputKind::Action { id: 7, value: -1 }),
        ];
        let mut buf = Vec::new();
        encode_tick_input(&events, &mut buf);
        assert_eq!(buf[0], TICK_INPUT_VERSION);
        let back = decode_tick_input(&buf).unwrap();
        let want: Vec<_> = events.iter().map(|e| (e.time_ns, e.kind)).collect();
        assert_eq!(back, want);
        for cut in 0..buf.len() {
            assert!(decode_tick_input(&buf[..cut]).is_err(), "cut {cut}");
        }
        let mut other_version = buf.clone();
        other_version[0] = 2;
        let err = decode_tick_input(&other_version).unwrap_err();
        assert!(err.to_string().contains("version"), "{err}");
        let mut huge = buf.clone();
        huge[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_tick_input(&huge).is_err());
        buf.push(0);
        assert!(decode_tick_input(&buf).is_err());
        let mut empty = Vec::new();
        encode_tick_input(&[], &mut empty);
        assert_eq!(decode_tick_input(&empty).unwrap(), vec![]);
    }
}
