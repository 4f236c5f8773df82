//! `--record FILE` and `--replay FILE`: the demo's runs as replays
//! (`laige_sim::replay`, format in the `laige_sim::replay` docs).
//!
//! * [`Recording`] wraps the game: at the end of setup it records the state
//!   hash after setup (tick 0); after every completed tick it records the
//!   events the systems saw (`world.input().delivered()`, the tick's input)
//!   and the state hash. Each record is flushed as it is written, so a run
//!   that is killed leaves a readable prefix.
//! * [`Verifying`] wraps the game for a headless, unpaced playback: the
//!   recorded events are fed back through the engine's scripted input at
//!   their ticks ([`playback_script`]), and after every tick the state hash
//!   is compared with the recorded one; the first differing tick ends the
//!   run and is reported (exit code [`EXIT_REPLAY_DIVERGED`]).
//! * A torn file (a recording a crash, a kill or a full disk cut short)
//!   plays its valid prefix and reports [`ReplayOutcome::Torn`]: "torn
//!   after tick N; verified ticks 0..M", exit code [`EXIT_REPLAY_TORN`]. A
//!   playback that compared no state hash is a failure, never "verified".
//!
//! Playback stamps each event at the start of its tick (the engine's
//! script places events by tick), in the recorded order: the demo's
//! systems read kinds and order, never the sub-tick time, so this
//! reproduces what they saw. The recorded `time_ns` is kept in the file.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use laige_engine::input::{ButtonState, CoordSpace, InputEvent, InputKind, KeyCode, ScriptAt};
use laige_engine::input::{InputPoint, MouseButton};
use laige_engine::sim::StateHasher;
use laige_engine::sim::replay::{
    self, Divergence, ENGINE_VERSION, Replay, ReplayHeader, ReplayRecorder,
};
use laige_engine::{Control, EngineConfig, EngineScalar, Error, Game, Result, Setup, World};

/// Exit code of a replay that did not verify: a state hash differs from
/// the recording, or the playback compared none (or not all) of them.
pub const EXIT_REPLAY_DIVERGED: u8 = 5;

/// Exit code of a torn replay whose valid prefix verified: the file ends
/// early (no end record), and every state hash it holds matched.
pub const EXIT_REPLAY_TORN: u8 = 6;

/// How a `--replay` playback ended ([`Verifying::outcome`]).
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
    /// A recorded hash differs.
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
    /// [`EXIT_REPLAY_DIVERGED`].
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Verified { .. } => 0,
            Self::Torn { .. } => EXIT_REPLAY_TORN,
            Self::Diverged(_) | Self::NotVerified { .. } => EXIT_REPLAY_DIVERGED,
        }
    }
}

impl std::fmt::Display for ReplayOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Verified { ticks, matched } => {
                write!(
                    f,
                    "replay verified: {ticks} ticks, {matched} state hashes match"
                )
            }
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

/// The replay's config hash: what shapes the demo's simulation besides
/// the seed and the backend (which the header holds itself).
#[must_use]
pub fn config_hash(config: &EngineConfig, entities: u32) -> u64 {
    let mut h = StateHasher::default();
    h.write_bytes(b"laige-demo");
    h.write_u32(config.game_loop.tick_rate_hz);
    h.write_u32(entities);
    h.write_u32(crate::BURST);
    h.write_u32(crate::MAX_BURSTS);
    h.write_u32(crate::HALF_EXTENT.cast_unsigned());
    h.finish()
}

/// Appends one tick's events: a `u32` count, then per event its `time_ns`
/// (`i64`) and its kind (a tag byte: 0 key, 1 pointer move, 2 mouse
/// button, 3 action, then the fields, little-endian).
pub fn encode_events(events: &[InputEvent], out: &mut Vec<u8>) {
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
                out.push(button_state(state));
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
                out.push(button_state(state));
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

fn button_state(s: ButtonState) -> u8 {
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

/// Decodes one tick's events (`(time_ns, kind)`, in order).
///
/// # Errors
/// `replay/input_invalid` (Corrupt) for bytes [`encode_events`] did not
/// write.
pub fn decode_events(bytes: &[u8]) -> Result<Vec<(i64, InputKind)>> {
    let bad = |what: &'static str| {
        replay::input_invalid(
            "demo input",
            format!("{} bytes ({what})", bytes.len()),
            "the encoding of laige_demo::replay::encode_events",
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
    let le = |b: &[u8]| -> [u8; 8] {
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
    let n = u32::from_le_bytes(le(take(4, "count")?)[..4].try_into().unwrap_or([0; 4]));
    // Every event is at least 12 bytes: a count the bytes cannot hold is
    // damage, not an allocation request.
    if n as usize > bytes.len() / 12 {
        return Err(bad("event count"));
    }
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let time_ns = i64::from_le_bytes(le(take(8, "time")?));
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

/// The engine script that feeds a replay's events back at their ticks.
///
/// # Errors
/// An input record that does not decode (naming its tick).
pub fn playback_script(replay: &Replay) -> Result<Vec<(ScriptAt, InputKind)>> {
    let mut script = Vec::new();
    for tick in 0..replay.ticks() {
        let bytes = replay.input(tick).unwrap_or(&[]);
        let events = decode_events(bytes).map_err(|e| {
            Error::new(e.code(), e.id())
                .with_field("tick")
                .with_value(tick)
                .with_detail(e.to_string())
        })?;
        script.extend(events.into_iter().map(|(_, k)| (ScriptAt::Tick(tick), k)));
    }
    Ok(script)
}

/// The game, recording its run (see the module docs).
#[derive(Debug)]
pub struct Recording<G> {
    inner: G,
    recorder: Option<ReplayRecorder<BufWriter<File>>>,
    path: std::path::PathBuf,
    buf: Vec<u8>,
    error: Option<Error>,
    /// A write failed and the run has not been told yet (at the next
    /// frame, through `Control::fail`): what failed, without the path.
    unreported: Option<String>,
}

impl<G> Recording<G> {
    /// Creates `path` and writes the header.
    ///
    /// # Errors
    /// `replay/io_failed` if the file cannot be created.
    pub fn create(inner: G, path: &Path, header: ReplayHeader) -> Result<Self> {
        Ok(Self {
            inner,
            recorder: Some(ReplayRecorder::create(path, header)?),
            path: path.to_path_buf(),
            buf: Vec::with_capacity(4096),
            error: None,
            unreported: None,
        })
    }

    /// Writes the end record; returns the ticks recorded.
    ///
    /// # Errors
    /// The first write error of the run (recording stopped there; the file
    /// holds the records before it), or the end record's.
    pub fn finish(self) -> Result<u64> {
        if let Some(e) = self.error {
            return Err(e);
        }
        match self.recorder {
            Some(r) => {
                let ticks = r.next_tick();
                r.finish()?;
                Ok(ticks)
            }
            None => Ok(0),
        }
    }

    /// A write failed (a full disk, an I/O error): recording stops there
    /// (the file holds every record before it, each flushed when written)
    /// and the run is ended at its next frame with this error, which names
    /// the file, the tick and the OS error (logged once, by the engine).
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
            .with_field("--record")
            .with_value(Error::quoted(&self.path.display().to_string()))
            .with_detail(format!("recording stopped at {what}"))
    }
}

impl<G: Game> Game for Recording<G> {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        self.inner.setup::<S>(setup)?;
        // The state after setup (tick 0) is recorded here, not at the first
        // frame: a run that a signal ends before its first frame still
        // leaves a valid replay (header, this hash, the end record). The
        // demo registers nothing beside its game, so this is the world the
        // first tick starts from.
        let hash = setup.world().state_hash();
        if let Some(r) = &mut self.recorder
            && r.wants_hash(0)
            && let Err(e) = r.record_hash(0, hash)
        {
            self.fail(e);
        }
        Ok(())
    }

    fn on_input(&mut self, event: &InputEvent, control: &mut Control) {
        self.inner.on_input(event, control);
    }

    fn on_frame(&mut self, world: &World, control: &mut Control) {
        if let Some(what) = self.unreported.take()
            && let Some(e) = &self.error
        {
            control.fail(self.naming_path(e, &what));
        }
        self.inner.on_frame(world, control);
    }

    fn on_tick(&mut self, world: &World, tick: u64) {
        self.inner.on_tick(world, tick);
        let Some(r) = &mut self.recorder else {
            return;
        };
        self.buf.clear();
        encode_events(world.input().delivered(), &mut self.buf);
        let result = r.record_input_bytes(tick - 1, &self.buf).and_then(|()| {
            if r.wants_hash(tick) {
                r.record_hash(tick, world.state_hash())
            } else {
                Ok(())
            }
        });
        if let Err(e) = result {
            self.fail(e);
        }
    }

    fn present<S: EngineScalar>(
        &mut self,
        world: &World,
        sprites: &mut Vec<laige_engine::render::gl::Sprite>,
    ) {
        self.inner.present::<S>(world, sprites);
    }

    fn view(&self, config: &EngineConfig) -> laige_engine::render::gl::ViewRect {
        self.inner.view(config)
    }
}

/// The game, checking a playback against a replay's hashes (see the
/// module docs).
#[derive(Debug)]
pub struct Verifying<G> {
    inner: G,
    checkpoints: Vec<(u64, u64)>,
    next: usize,
    /// Checkpoints compared and matched.
    pub matched: u64,
    /// The completed tick count of the last matching checkpoint.
    pub last_match: Option<u64>,
    /// The first checkpoint that did not match.
    pub divergence: Option<Divergence>,
}

impl<G> Verifying<G> {
    /// Checks `inner`'s run against `replay`'s recorded hashes.
    pub fn new(inner: G, replay: &Replay) -> Self {
        Self {
            inner,
            checkpoints: replay.checkpoints().collect(),
            next: 0,
            matched: 0,
            last_match: None,
            divergence: None,
        }
    }

    /// How the playback ended, for a file that is complete or `torn`
    /// (its ticks all played): diverged, verified, torn (with every hash
    /// of the prefix matched), or not verified (a hash never reached, or
    /// none compared).
    #[must_use]
    pub fn outcome(&self, ticks: u64, torn: bool) -> ReplayOutcome {
        let recorded = self.checkpoints.len() as u64;
        match (self.divergence, self.last_match) {
            (Some(d), _) => ReplayOutcome::Diverged(d),
            (None, Some(verified_ticks)) if self.complete() && torn => ReplayOutcome::Torn {
                torn_after_tick: ticks,
                verified_ticks,
                matched: self.matched,
            },
            (None, Some(_)) if self.complete() => ReplayOutcome::Verified {
                ticks,
                matched: self.matched,
            },
            _ => ReplayOutcome::NotVerified {
                matched: self.matched,
                recorded,
            },
        }
    }

    /// Whether every recorded checkpoint was reached and matched.
    #[must_use]
    pub fn complete(&self) -> bool {
        self.divergence.is_none() && self.next == self.checkpoints.len()
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

impl<G: Game> Game for Verifying<G> {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        self.inner.setup::<S>(setup)
    }

    fn on_frame(&mut self, world: &World, control: &mut Control) {
        if world.tick() == 0 {
            self.check(world, 0);
        }
        if self.divergence.is_some() {
            control.exit();
        }
        self.inner.on_frame(world, control);
    }

    fn on_tick(&mut self, world: &World, tick: u64) {
        self.inner.on_tick(world, tick);
        self.check(world, tick);
    }

    fn present<S: EngineScalar>(
        &mut self,
        world: &World,
        sprites: &mut Vec<laige_engine::render::gl::Sprite>,
    ) {
        self.inner.present::<S>(world, sprites);
    }

    fn view(&self, config: &EngineConfig) -> laige_engine::render::gl::ViewRect {
        self.inner.view(config)
    }
}

/// A replay's header for a demo run of `config` with `entities` sprites.
#[must_use]
pub fn header(config: &EngineConfig, entities: u32) -> ReplayHeader {
    ReplayHeader::new(
        config.determinism.math,
        config.determinism.seed,
        config_hash(config, entities),
    )
}

/// Checks that `replay` can be played with `config` (after its backend and
/// seed were taken from the replay) and `entities`.
///
/// # Errors
/// `replay/identity_mismatch` naming the field.
pub fn check(replay: &Replay, config: &EngineConfig, entities: u32) -> Result<()> {
    replay.header().check_compatible(
        config.determinism.math,
        config_hash(config, entities),
        ENGINE_VERSION,
    )
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
    fn events_round_trip_through_their_encoding() {
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
            ev(11, InputKind::Action { id: 7, value: -1 }),
        ];
        let mut buf = Vec::new();
        encode_events(&events, &mut buf);
        let back = decode_events(&buf).unwrap();
        assert_eq!(back.len(), 4);
        for (e, (t, k)) in events.iter().zip(&back) {
            assert_eq!((e.time_ns, e.kind), (*t, *k));
        }
        for cut in 0..buf.len() {
            assert!(decode_events(&buf[..cut]).is_err(), "cut {cut}");
        }
        let mut huge = buf.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_events(&huge).is_err());
        buf.push(0);
        assert!(decode_events(&buf).is_err());
        let mut empty = Vec::new();
        encode_events(&[], &mut empty);
        assert_eq!(decode_events(&empty).unwrap(), vec![]);
    }
}
