//! [`ReplayPlayer`]: a replay played on a target that can jump to any
//! recorded tick: from the nearest usable keyframe at or before it (or
//! from where the target is, when that is nearer), re-simulating the rest
//! and checking every recorded state hash on the way.

use std::fmt;

use laige_core::{Error, ErrorCode, Result};

use super::reader::{Replay, keyframe_damaged};
use super::verify::{Divergence, ReplayTarget, WorldTarget};
use super::{TICK_OUT_OF_RANGE, WORLD_NOT_AT_START};
use crate::World;

/// A [`ReplayTarget`] whose whole state can be saved and restored as
/// encoded snapshot bytes (the format of `World::encode_snapshot`), so a
/// player can start it from a keyframe.
pub trait SeekTarget: ReplayTarget {
    /// The completed tick count of the target's state.
    fn tick(&self) -> u64;

    /// Appends the target's state to `out` as an encoded snapshot.
    ///
    /// # Errors
    /// The snapshot encoder's (`snapshot/unencodable`, …).
    fn save_state(&mut self, out: &mut Vec<u8>) -> Result<()>;

    /// Replaces the target's state with the encoded snapshot `bytes`; on
    /// an error the state is unchanged.
    ///
    /// # Errors
    /// The snapshot decoder's (`snapshot/bytes_corrupt`,
    /// `snapshot/bytes_mismatch`).
    fn load_state(&mut self, bytes: &[u8]) -> Result<()>;
}

impl<F> SeekTarget for WorldTarget<'_, F>
where
    F: FnMut(&mut World, u64, &[u8]) -> Result<()>,
{
    fn tick(&self) -> u64 {
        self.world().tick()
    }

    fn save_state(&mut self, out: &mut Vec<u8>) -> Result<()> {
        self.world().encode_snapshot(out)
    }

    fn load_state(&mut self, bytes: &[u8]) -> Result<()> {
        self.world_mut().decode_snapshot(bytes)
    }
}

/// Where a seek started re-simulating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeekStart {
    /// The keyframe of this tick was loaded.
    Keyframe(u64),
    /// The target went on from the tick it was at (nearer than any
    /// keyframe).
    Current(u64),
    /// The state the player was handed at tick 0 was restored (no usable
    /// keyframe at or before the tick).
    Origin,
}

impl SeekStart {
    /// The completed tick count re-simulation started from.
    #[must_use]
    pub fn tick(&self) -> u64 {
        match *self {
            Self::Keyframe(t) | Self::Current(t) => t,
            Self::Origin => 0,
        }
    }
}

/// What one [`ReplayPlayer::seek`] did.
#[derive(Clone, Debug)]
pub struct SeekReport {
    /// The tick reached (the target's completed tick count).
    pub tick: u64,
    /// Where re-simulation started.
    pub start: SeekStart,
    /// Ticks re-simulated.
    pub resimulated: u64,
    /// Recorded state hashes compared on the way (all matched unless
    /// [`divergence`](Self::divergence) is set).
    pub checked: u64,
    /// The first recorded hash this seek did not reproduce (the seek
    /// still reaches its tick).
    pub divergence: Option<Divergence>,
    /// Keyframes passed over because they are damaged or do not load, as
    /// `(tick, the replay/keyframe_damaged error's text naming why)`,
    /// newest first.
    pub skipped: Vec<(u64, String)>,
}

impl fmt::Display for SeekReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at tick {}: ", self.tick)?;
        match self.start {
            SeekStart::Keyframe(t) => write!(f, "from the keyframe of tick {t}")?,
            SeekStart::Current(t) => write!(f, "on from tick {t}")?,
            SeekStart::Origin => write!(f, "from tick 0 (no usable keyframe)")?,
        }
        write!(
            f,
            ", {} tick(s) re-simulated, {} state hash(es) checked",
            self.resimulated, self.checked
        )?;
        match &self.divergence {
            Some(d) => write!(f, "; {d}")?,
            None => write!(f, ", all match")?,
        }
        for (_, e) in &self.skipped {
            write!(f, "; skipped: {e}")?;
        }
        Ok(())
    }
}

/// A replay and a target it plays on, able to go to any recorded tick
/// ([`seek`](Self::seek)), forward or back: the nearest usable keyframe at
/// or before the tick is loaded (or the target goes on from where it is,
/// when that is nearer; or, with no usable keyframe, from the state it was
/// handed at tick 0), and the ticks from there are re-simulated with their
/// recorded inputs, every recorded state hash compared on the way. A
/// damaged keyframe (its snapshot's checksum, or one that does not load) is
/// reported in [`SeekReport::skipped`] and the one before it is used.
///
/// ```
/// use laige_core::MathBackend;
/// use laige_sim::replay::{Replay, ReplayHeader, ReplayPlayer, ReplayRecorder, SeekStart, WorldTarget};
/// use laige_sim::{StateHash, World};
///
/// #[derive(Clone, Copy, StateHash)]
/// struct Counter(u32);
///
/// fn world() -> laige_core::Result<World> {
///     let mut w = World::default();
///     w.register_hashed_as::<Counter>("counter")?;
///     w.register_system("count", 0, |ctx| {
///         for c in ctx.query_mut::<&mut Counter>() { c.0 = c.0.wrapping_mul(3).wrapping_add(1); }
///         Ok(())
///     })?;
///     w.spawn((Counter(0),));
///     Ok(w)
/// }
/// fn apply(_: &mut World, _: u64, _: &[u8]) -> laige_core::Result<()> { Ok(()) }
///
/// // Record 100 ticks with a keyframe every 16.
/// let mut w = world()?;
/// let schedule = w.schedule_systems();
/// let mut header = ReplayHeader::new(MathBackend::default(), 0, 0);
/// header.keyframe_interval = 16;
/// let mut rec = ReplayRecorder::new(Vec::new(), header)?;
/// let mut hashes = vec![w.state_hash()];
/// let mut snapshot = Vec::new();
/// rec.record_hash(0, hashes[0])?;
/// for tick in 0..100 {
///     if rec.wants_keyframe(tick) {
///         snapshot.clear();
///         w.encode_snapshot(&mut snapshot)?;
///         rec.record_keyframe(tick, &snapshot)?;
///     }
///     rec.record_input_bytes(tick, &[])?;
///     w.run_systems(&schedule)?;
///     hashes.push(w.state_hash());
///     rec.record_hash(tick + 1, w.state_hash())?;
/// }
/// let replay = Replay::parse(&rec.finish()?)?;
///
/// // Seek on a fresh world: tick 70 starts from the keyframe of tick 64.
/// let mut w = world()?;
/// let schedule = w.schedule_systems();
/// let mut player = ReplayPlayer::new(replay, WorldTarget::new(&mut w, &schedule, apply))?;
/// let report = player.seek(70)?;
/// assert_eq!((report.start, report.resimulated), (SeekStart::Keyframe(64), 6));
/// assert!(report.divergence.is_none());
/// assert_eq!(player.state_hash(), hashes[70]);
/// let back = player.seek(69)?; // a step back
/// assert_eq!(back.start, SeekStart::Keyframe(64));
/// assert_eq!(player.state_hash(), hashes[69]);
/// # Ok::<(), laige_core::Error>(())
/// ```
pub struct ReplayPlayer<T> {
    replay: Replay,
    target: T,
    /// The state playback falls back to: the target's when it was handed
    /// over (tick 0), or a later start's keyframe.
    origin: Vec<u8>,
    /// Keyframes (by tick) that failed to load once, with why: never
    /// tried again.
    unusable: Vec<(u64, String)>,
}

impl<T: SeekTarget> ReplayPlayer<T> {
    /// A player of `replay` on `target`, which must be set up as the
    /// recording began (tick 0); its state is kept as the fallback start.
    /// A recording from a later start ([`Replay::start_tick`]) loads its
    /// start keyframe into the target instead (set up with the game's
    /// registrations, at tick 0), and that state is the fallback.
    ///
    /// # Errors
    /// `replay/world_not_at_start` (InvalidState) for a target at another
    /// tick; `replay/keyframe_damaged` (Corrupt) for a later start whose
    /// keyframe is damaged or does not load (the target's state is then
    /// unspecified); the target's [`SeekTarget::save_state`] error.
    pub fn new(replay: Replay, mut target: T) -> Result<Self> {
        if target.tick() != 0 {
            return Err(Error::new(ErrorCode::InvalidState, WORLD_NOT_AT_START)
                .with_field("world.tick")
                .with_value(target.tick())
                .with_accepted("0 (a target set up as the recording began)"));
        }
        let start = replay.start_tick();
        if start > 0 {
            load_start_keyframe(&replay, &mut target)?;
        }
        let mut origin = Vec::new();
        target.save_state(&mut origin)?;
        Ok(Self {
            replay,
            target,
            origin,
            unusable: Vec::new(),
        })
    }

    /// The replay.
    #[must_use]
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    /// The target.
    #[must_use]
    pub fn target(&self) -> &T {
        &self.target
    }

    /// The target, mutably (changing its state makes later hash checks
    /// fail: a test's perturbation, say).
    pub fn target_mut(&mut self) -> &mut T {
        &mut self.target
    }

    /// The target's completed tick count.
    #[must_use]
    pub fn tick(&self) -> u64 {
        self.target.tick()
    }

    /// The target's state hash.
    pub fn state_hash(&mut self) -> u64 {
        self.target.state_hash()
    }

    /// Goes to `tick` (a completed tick count,
    /// `replay.start_tick()..=replay.end_tick()`): see the type's docs.
    ///
    /// # Errors
    /// `replay/tick_out_of_range` (InvalidArgument) past the recorded
    /// ticks; the origin failing to load (the target's error); the
    /// target's error from a re-simulated tick (the target is then left
    /// at that tick).
    pub fn seek(&mut self, tick: u64) -> Result<SeekReport> {
        let (first, last) = (self.replay.start_tick(), self.replay.end_tick());
        if tick < first || tick > last {
            return Err(Error::invalid_argument(
                TICK_OUT_OF_RANGE,
                "tick",
                tick,
                format!("{first}..={last} (the recorded ticks)"),
            ));
        }
        let current = self.target.tick();
        let mut skipped = Vec::new();
        let mut start = None;
        // The newest keyframe at or before `tick` that is nearer than the
        // target's own state, and loads.
        let usable_from = if current <= tick { current + 1 } else { 0 };
        let candidates: Vec<(u64, usize)> = self
            .replay
            .keyframes()
            .enumerate()
            .filter(|(_, k)| k.tick <= tick && k.tick >= usable_from)
            .map(|(i, k)| (k.tick, i))
            .collect();
        for &(at, i) in candidates.iter().rev() {
            if let Some((_, e)) = self.unusable.iter().find(|(t, _)| *t == at) {
                skipped.push((at, e.clone()));
                continue;
            }
            let Some(k) = self.replay.keyframes().nth(i) else {
                continue;
            };
            if let Some(e) = k.damage {
                skipped.push((at, e.to_string()));
                continue;
            }
            match self.target.load_state(k.bytes) {
                Ok(()) if self.target.tick() == at => {
                    start = Some(SeekStart::Keyframe(at));
                    break;
                }
                Ok(()) => {
                    let e = keyframe_damaged(
                        at,
                        &Error::new(ErrorCode::Corrupt, super::KEYFRAME_DAMAGED)
                            .with_detail(format!("it holds tick {}", self.target.tick())),
                        "loading it",
                    );
                    self.unusable.push((at, e.to_string()));
                    skipped.push((at, e.to_string()));
                    // The target's state is the wrong keyframe's now.
                    self.target.load_state(&self.origin)?;
                }
                Err(err) => {
                    let e = keyframe_damaged(at, &err, "loading it");
                    crate::emit::report(&e);
                    self.unusable.push((at, e.to_string()));
                    skipped.push((at, e.to_string()));
                }
            }
        }
        let start = match start {
            Some(s) => s,
            None if self.target.tick() <= tick && self.target.tick() == current => {
                SeekStart::Current(current)
            }
            None => {
                self.target.load_state(&self.origin)?;
                SeekStart::Origin
            }
        };
        let from = start.tick();
        let mut report = SeekReport {
            tick: from,
            start,
            resimulated: 0,
            checked: 0,
            divergence: None,
            skipped,
        };
        let mut last_match = None;
        let mut check = |target: &mut T, report: &mut SeekReport, at: u64| {
            if report.divergence.is_some() {
                return;
            }
            if let Some(recorded) = self.replay.hash_at(at) {
                let replayed = target.state_hash();
                if replayed == recorded {
                    report.checked += 1;
                    last_match = Some(at);
                } else {
                    report.divergence = Some(Divergence {
                        tick: at,
                        recorded,
                        replayed,
                        last_match,
                    });
                }
            }
        };
        // A loaded keyframe is checked against its tick's recorded hash.
        if matches!(start, SeekStart::Keyframe(_) | SeekStart::Origin) {
            check(&mut self.target, &mut report, from);
        }
        for t in from..tick {
            let input = self.replay.input(t).unwrap_or(&[]);
            self.target.run_tick(t, input)?;
            report.resimulated += 1;
            report.tick = t + 1;
            check(&mut self.target, &mut report, t + 1);
        }
        Ok(report)
    }

    /// One tick forward ([`seek`](Self::seek) to the next tick).
    ///
    /// # Errors
    /// As [`seek`](Self::seek).
    pub fn step(&mut self) -> Result<SeekReport> {
        self.seek(self.tick() + 1)
    }

    /// The replay and the target.
    pub fn into_parts(self) -> (Replay, T) {
        (self.replay, self.target)
    }
}

/// Loads the keyframe a recording from a later start
/// ([`Replay::start_tick`] > 0) is played from into `target` (what
/// [`ReplayPlayer::new`] does; [`verify`](super::verify) needs it done
/// first).
///
/// # Errors
/// `replay/keyframe_damaged` (Corrupt, field `keyframe`, value the start
/// tick) if it is missing, damaged, fails to load or holds another tick.
pub fn load_start_keyframe<T: SeekTarget>(replay: &Replay, target: &mut T) -> Result<()> {
    let start = replay.start_tick();
    let damaged = |why: String| {
        let e = Error::new(ErrorCode::Corrupt, super::KEYFRAME_DAMAGED)
            .with_field("keyframe")
            .with_value(start)
            .with_accepted("the intact keyframe of the recording's start tick")
            .with_detail(why);
        crate::emit::report(&e);
        e
    };
    let k = replay
        .start_keyframe()
        .ok_or_else(|| damaged("the recording holds no keyframe of its start tick".into()))?;
    if let Some(e) = k.damage {
        return Err(damaged(e.to_string()));
    }
    target
        .load_state(k.bytes)
        .map_err(|e| damaged(format!("loading it: {e}")))?;
    if target.tick() != start {
        return Err(damaged(format!("it holds tick {}", target.tick())));
    }
    Ok(())
}

impl<T> fmt::Debug for ReplayPlayer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReplayPlayer")
            .field("ticks", &self.replay.ticks())
            .field("keyframes", &self.replay.keyframes().len())
            .finish_non_exhaustive()
    }
}
