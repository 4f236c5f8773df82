//! Headless playback: re-run a [`Replay`]'s inputs on a target and compare
//! its state hash with every recorded one.

use std::fmt;

use laige_core::{Error, ErrorCode, Result};

use super::reader::{Record, Replay, ReplayPrefix};
use super::{DIVERGED, INCOMPLETE, NOTHING_VERIFIED, WORLD_NOT_AT_START};
use crate::{SystemSchedule, World};

/// What a replay is played on: something that applies one tick's recorded
/// input and runs that tick, and hashes its state.
pub trait ReplayTarget {
    /// Applies `input` (as recorded for `tick`) and runs tick `tick`.
    ///
    /// # Errors
    /// Any: playback stops and returns it unchanged.
    fn run_tick(&mut self, tick: u64, input: &[u8]) -> Result<()>;

    /// The current state hash ([`World::state_hash`] for a world).
    fn state_hash(&mut self) -> u64;
}

/// A [`World`] and its schedule as a replay target: `apply(world, tick,
/// input)` turns the recorded input into world changes, then the schedule
/// runs one tick.
///
/// ```
/// use laige_core::MathBackend;
/// use laige_sim::replay::{self, Replay, ReplayHeader, ReplayRecorder, WorldTarget};
/// use laige_sim::{StateHash, World};
///
/// #[derive(Clone, Copy, StateHash)]
/// struct Counter(u32);
///
/// fn world() -> laige_core::Result<World> {
///     let mut w = World::default();
///     w.register_hashed_as::<Counter>("counter")?;
///     w.register_system("count", 0, |ctx| {
///         for c in ctx.query_mut::<&mut Counter>() { c.0 += 1; }
///         Ok(())
///     })?;
///     w.spawn((Counter(0),));
///     Ok(w)
/// }
/// // An input byte adds to every counter.
/// fn apply(w: &mut World, _tick: u64, input: &[u8]) -> laige_core::Result<()> {
///     for c in w.ecs_mut().query_mut::<&mut Counter>() { c.0 += u32::from(input[0]); }
///     Ok(())
/// }
///
/// // Record ten ticks.
/// let mut w = world()?;
/// let schedule = w.schedule_systems();
/// let mut rec = ReplayRecorder::new(Vec::new(), ReplayHeader::new(MathBackend::default(), 0, 0))?;
/// rec.record_hash(0, w.state_hash())?;
/// for tick in 0..10 {
///     let input = [tick as u8 % 3];
///     rec.record_input_bytes(tick, &input)?;
///     apply(&mut w, tick, &input)?;
///     w.run_systems(&schedule)?;
///     rec.record_hash(w.tick(), w.state_hash())?;
/// }
/// let replay = Replay::parse(&rec.finish()?)?;
///
/// // Play it back on a fresh world: every hash matches.
/// let mut w = world()?;
/// let schedule = w.schedule_systems();
/// let report = replay::verify(&replay, &mut WorldTarget::new(&mut w, &schedule, apply))?;
/// assert_eq!(report.ticks, 10);
/// assert_eq!(report.checkpoints, 11);
/// assert!(report.divergence.is_none());
/// # Ok::<(), laige_core::Error>(())
/// ```
pub struct WorldTarget<'w, F> {
    world: &'w mut World,
    schedule: &'w SystemSchedule,
    apply: F,
}

impl<'w, F> WorldTarget<'w, F>
where
    F: FnMut(&mut World, u64, &[u8]) -> Result<()>,
{
    /// Plays on `world` (set up as the recorded run was, at tick 0) with
    /// `schedule`.
    pub fn new(world: &'w mut World, schedule: &'w SystemSchedule, apply: F) -> Self {
        Self {
            world,
            schedule,
            apply,
        }
    }

    /// The world played on.
    #[must_use]
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world played on, mutably.
    pub fn world_mut(&mut self) -> &mut World {
        self.world
    }
}

impl<F> ReplayTarget for WorldTarget<'_, F>
where
    F: FnMut(&mut World, u64, &[u8]) -> Result<()>,
{
    fn run_tick(&mut self, tick: u64, input: &[u8]) -> Result<()> {
        if self.world.tick() != tick {
            return Err(Error::new(ErrorCode::InvalidState, WORLD_NOT_AT_START)
                .with_field("world.tick")
                .with_value(self.world.tick())
                .with_accepted(format!("{tick} (the replay's next tick)"))
                .with_detail("play a replay on a world set up as the recording began"));
        }
        (self.apply)(self.world, tick, input)?;
        self.world.run_systems(self.schedule)
    }

    fn state_hash(&mut self) -> u64 {
        self.world.state_hash()
    }
}

/// The first recorded state hash the playback did not reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The completed tick count whose hash differs: with a hash interval
    /// of 1 the first tick whose state differs; otherwise the first
    /// *checked* one (the state first differed after
    /// [`last_match`](Self::last_match)).
    pub tick: u64,
    /// The recorded hash.
    pub recorded: u64,
    /// The hash the playback produced.
    pub replayed: u64,
    /// The last checkpoint that matched, if any.
    pub last_match: Option<u64>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "replay diverged at tick {}: recorded state hash {:#018x}, replayed {:#018x}",
            self.tick, self.recorded, self.replayed
        )?;
        match self.last_match {
            Some(t) if t + 1 == self.tick => write!(f, " (tick {t} matched)"),
            Some(t) => write!(
                f,
                " (the last matching checkpoint is tick {t}: the state first differs in ticks {}..={})",
                t + 1,
                self.tick
            ),
            None => write!(f, " (no checkpoint matched)"),
        }
    }
}

impl Divergence {
    /// This divergence as a `replay/diverged` error
    /// ([`ErrorCode::Failed`]), for callers that treat it as one.
    #[must_use]
    pub fn to_error(&self) -> Error {
        Error::new(ErrorCode::Failed, DIVERGED)
            .with_field("tick")
            .with_value(self.tick)
            .with_detail(self.to_string())
    }
}

/// What a playback did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verification {
    /// Ticks played.
    pub ticks: u64,
    /// Recorded hashes compared and matched.
    pub checkpoints: u64,
    /// The completed tick count of the last matching checkpoint: ticks
    /// `0..verified_ticks` are verified (ticks played after it, if any,
    /// were not checked by a hash).
    pub verified_ticks: u64,
    /// The first mismatch; playback stops there.
    pub divergence: Option<Divergence>,
}

/// The playback of a torn file's valid prefix: not a full verification,
/// and a different type from one.
#[derive(Debug)]
pub struct TornVerification {
    /// The playback of the prefix (its divergence, if any, is real).
    pub verification: Verification,
    /// The ticks the prefix holds: the file is torn after tick N.
    pub torn_after_tick: u64,
    /// Where and how the file ends (`replay/corrupt`, field `record` or
    /// `end_record`).
    pub damage: Error,
}

impl fmt::Display for TornVerification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "torn after tick {}; verified ticks 0..{}",
            self.torn_after_tick, self.verification.verified_ticks
        )?;
        let unchecked = self.verification.ticks
            - self
                .verification
                .verified_ticks
                .min(self.verification.ticks);
        if unchecked > 0 && self.verification.divergence.is_none() {
            write!(
                f,
                " ({unchecked} later tick(s) played without a recorded hash)"
            )?;
        }
        Ok(())
    }
}

/// What [`verify_prefix`] found: a complete file verified in full, or a
/// torn file whose valid prefix was verified.
#[derive(Debug)]
pub enum PrefixVerification {
    /// The file is complete: every recorded tick and hash was played.
    Complete(Verification),
    /// The file is torn: only its prefix was played.
    Torn(TornVerification),
}

impl Verification {
    /// `Ok(self)` if every hash matched, the divergence as an error
    /// otherwise.
    ///
    /// # Errors
    /// `replay/diverged` ([`ErrorCode::Failed`]) naming the tick.
    pub fn into_result(self) -> Result<Self> {
        match self.divergence {
            None => Ok(self),
            Some(d) => Err(d.to_error()),
        }
    }
}

/// Plays every recorded input of a complete replay on `target` in file
/// order and compares the target's state hash at every recorded
/// checkpoint; stops at the first divergence. Identity checks (backend,
/// config) are the caller's, before setting the target up: see
/// [`ReplayHeader::check_compatible`](super::ReplayHeader::check_compatible).
/// A recording from a later start ([`Replay::start_tick`] > 0) is played
/// on a target that holds its start state: load
/// [`Replay::start_keyframe`] first (a [`ReplayPlayer`](super::ReplayPlayer)
/// does it); a target in another state diverges at the start tick.
///
/// # Errors
/// * `replay/incomplete` (InvalidArgument) for the prefix of a torn or
///   damaged file: use [`verify_prefix`].
/// * `replay/nothing_verified` (Failed) when no recorded hash was compared.
/// * The target's own error from [`ReplayTarget::run_tick`], unchanged.
///
/// A divergence is not an error here: it is [`Verification::divergence`]
/// (see [`Verification::into_result`]).
pub fn verify<T: ReplayTarget>(replay: &Replay, target: &mut T) -> Result<Verification> {
    if !replay.is_complete() {
        return Err(Error::invalid_argument(
            INCOMPLETE,
            "replay",
            format!("the prefix of a file, {} tick(s)", replay.ticks()),
            "a complete replay (verify a torn file's prefix with verify_prefix)",
        ));
    }
    play(replay, target)
}

/// Verifies what a file holds: a complete file in full (as [`verify`]), a
/// torn one ([`ReplayPrefix::is_torn`]) as far as its valid prefix goes,
/// reported as [`PrefixVerification::Torn`].
///
/// # Errors
/// The damage itself for a file damaged inside (a bad CRC, a missing
/// state hash: that is corruption, not a torn tail), and
/// `replay/nothing_verified` or the target's error as [`verify`].
pub fn verify_prefix<T: ReplayTarget>(
    prefix: ReplayPrefix,
    target: &mut T,
) -> Result<PrefixVerification> {
    let torn = prefix.is_torn();
    match prefix.damage {
        None => Ok(PrefixVerification::Complete(verify(
            &prefix.replay,
            target,
        )?)),
        Some(damage) if torn => Ok(PrefixVerification::Torn(TornVerification {
            verification: play(&prefix.replay, target)?,
            torn_after_tick: prefix.replay.end_tick(),
            damage,
        })),
        Some(damage) => Err(damage),
    }
}

/// The playback both entry points share.
fn play<T: ReplayTarget>(replay: &Replay, target: &mut T) -> Result<Verification> {
    let mut report = Verification {
        ticks: 0,
        checkpoints: 0,
        verified_ticks: 0,
        divergence: None,
    };
    let mut last_match = None;
    for record in replay.records() {
        match record {
            Record::Input { tick, payload } => {
                target.run_tick(tick, payload)?;
                report.ticks += 1;
            }
            Record::Hash { tick, hash } => {
                let replayed = target.state_hash();
                if replayed != hash {
                    report.divergence = Some(Divergence {
                        tick,
                        recorded: hash,
                        replayed,
                        last_match,
                    });
                    return Ok(report);
                }
                report.checkpoints += 1;
                report.verified_ticks = tick;
                last_match = Some(tick);
            }
            Record::End { .. } | Record::Keyframe { .. } => {}
        }
    }
    if report.checkpoints == 0 {
        return Err(Error::new(ErrorCode::Failed, NOTHING_VERIFIED)
            .with_field("checkpoints")
            .with_value(0)
            .with_accepted("at least one recorded state hash compared")
            .with_detail(format!(
                "{} tick(s) played, but the file holds no state hash to compare them with",
                report.ticks
            )));
    }
    Ok(report)
}
