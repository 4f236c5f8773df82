//! [`ReplayRecorder`]: writes a replay incrementally, one flushed record at
//! a time, so a crash leaves a readable prefix.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use laige_core::{Error, ErrorCode, Result};

use super::crc32::crc32;
use super::format::{
    Kind, MAX_KEYFRAME_BYTES, MAX_PAYLOAD_BYTES, RECORD_CRC, RECORD_PREFIX, ReplayHeader,
    encode_record,
};
use super::{IO_FAILED, RECORDER_STOPPED, ReplayInput, TICK_OUT_OF_ORDER};

/// Scratch capacity reserved up front (each of the two buffers): a record
/// of a 4 KiB input fits without growing, so steady-state recording
/// allocates nothing.
const SCRATCH_BYTES: usize = 4096 + RECORD_PREFIX + RECORD_CRC;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Open,
    /// A write failed at this tick; nothing more is written.
    Failed(u64),
}

/// Records a run: the header, then per tick an input record (before the
/// tick runs) and, every `hash_interval` ticks, a state-hash record (after
/// it ran); [`finish`](Self::finish) writes the end record.
///
/// Every record is encoded into a reused scratch buffer, written with one
/// `write_all` and flushed, so the file always ends on a record boundary
/// except while a record is being written; the reader returns the valid
/// prefix of a file a crash cut short. Recording allocates nothing once the
/// scratch buffer has grown to the largest input.
///
/// ```
/// use laige_core::MathBackend;
/// use laige_sim::replay::{Replay, ReplayHeader, ReplayRecorder};
///
/// let header = ReplayHeader::new(MathBackend::FixedPoint16_16, 42, 0xc0ffee);
/// let mut rec = ReplayRecorder::new(Vec::new(), header)?;
/// rec.record_hash(0, 0x1111)?; // the state after setup
/// for tick in 0..3_u64 {
///     rec.record_input_bytes(tick, &[tick as u8])?;
///     // ... apply the input, run the tick ...
///     rec.record_hash(tick + 1, 0x2222 + tick)?;
/// }
/// let bytes = rec.finish()?;
/// let replay = Replay::parse(&bytes)?;
/// assert_eq!(replay.ticks(), 3);
/// assert_eq!(replay.input(1), Some(&[1_u8][..]));
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Debug)]
pub struct ReplayRecorder<W: Write> {
    out: W,
    header: ReplayHeader,
    scratch: Vec<u8>,
    input_buf: Vec<u8>,
    next_tick: u64,
    last_hash_tick: Option<u64>,
    last_keyframe_tick: Option<u64>,
    state: State,
}

impl ReplayRecorder<BufWriter<File>> {
    /// Creates (truncates) `path` and writes the header.
    ///
    /// # Errors
    /// `replay/header_invalid` for a bad header; `replay/io_failed` (Io,
    /// naming the path) if the file cannot be created or written.
    pub fn create(path: impl AsRef<Path>, header: ReplayHeader) -> Result<Self> {
        let path = path.as_ref();
        header.validate()?;
        let file = File::create(path).map_err(|e| {
            Error::new(ErrorCode::Io, IO_FAILED)
                .with_field("path")
                .with_value(path.display())
                .with_detail("creating the replay file")
                .with_source(e)
        })?;
        Self::new(BufWriter::new(file), header)
    }
}

impl<W: Write> ReplayRecorder<W> {
    /// Writes (and flushes) the header to `out`.
    ///
    /// # Errors
    /// `replay/header_invalid` for a bad header; `replay/io_failed` if the
    /// write fails.
    pub fn new(out: W, header: ReplayHeader) -> Result<Self> {
        header.validate()?;
        let start = header.start_tick;
        let mut rec = Self {
            out,
            header,
            scratch: Vec::with_capacity(SCRATCH_BYTES),
            input_buf: Vec::with_capacity(SCRATCH_BYTES),
            next_tick: start,
            last_hash_tick: None,
            last_keyframe_tick: None,
            state: State::Open,
        };
        rec.header.encode(&mut rec.scratch);
        rec.flush_scratch(0, "writing the header")?;
        Ok(rec)
    }

    /// The header this recorder wrote.
    #[must_use]
    pub fn header(&self) -> &ReplayHeader {
        &self.header
    }

    /// The tick the next input record is for (= input records written).
    #[must_use]
    pub fn next_tick(&self) -> u64 {
        self.next_tick
    }

    /// The sink.
    #[must_use]
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Whether a state hash is due after `completed` ticks: at the start
    /// (tick 0, or the header's later `start_tick`) and every
    /// `hash_interval` ticks, once each.
    #[must_use]
    pub fn wants_hash(&self, completed: u64) -> bool {
        self.state == State::Open
            && completed == self.next_tick
            && (completed.is_multiple_of(u64::from(self.header.hash_interval))
                || completed == self.header.start_tick)
            && self.last_hash_tick != Some(completed)
    }

    /// Whether a keyframe is due after `completed` ticks: at tick 0 and
    /// every `keyframe_interval` ticks, once each (none with an interval
    /// of 0); and always at a later start tick, which playback needs.
    #[must_use]
    pub fn wants_keyframe(&self, completed: u64) -> bool {
        let interval = u64::from(self.header.keyframe_interval);
        let start = self.header.start_tick;
        self.state == State::Open
            && completed == self.next_tick
            && ((interval > 0 && completed.is_multiple_of(interval))
                || (start > 0 && completed == start))
            && self.last_keyframe_tick != Some(completed)
    }

    /// Records a keyframe: `snapshot` is the world after `completed` ticks
    /// encoded by `World::encode_snapshot` (or `SnapshotRing::encode`), at
    /// most [`MAX_KEYFRAME_BYTES`](super::MAX_KEYFRAME_BYTES). Any
    /// completed tick count may carry one, not only multiples of the
    /// interval. The record is written from `snapshot` directly (no copy
    /// into the scratch buffer).
    ///
    /// # Errors
    /// `replay/tick_out_of_order` unless `completed` equals the number of
    /// input records written and no keyframe was recorded for it yet;
    /// `replay/input_too_large` for a snapshot over the cap (nothing is
    /// written); `replay/recorder_stopped`; `replay/io_failed` (as
    /// [`record_input_bytes`](Self::record_input_bytes)).
    pub fn record_keyframe(&mut self, completed: u64, snapshot: &[u8]) -> Result<()> {
        self.check_open(completed)?;
        self.check_tick(
            completed,
            "completed",
            self.next_tick,
            "the number of input records written",
        )?;
        if self.last_keyframe_tick == Some(completed) {
            return Err(Error::invalid_argument(
                TICK_OUT_OF_ORDER,
                "completed",
                completed,
                "a tick count without a keyframe yet",
            ));
        }
        if snapshot.len() > MAX_KEYFRAME_BYTES as usize {
            return Err(Error::invalid_argument(
                super::INPUT_TOO_LARGE,
                "keyframe",
                format!("{} bytes at tick {completed}", snapshot.len()),
                "at most 67108864 bytes per keyframe",
            ));
        }
        // The prefix and the CRC of the prefix, around the payload.
        self.scratch.clear();
        encode_record(&mut self.scratch, Kind::Keyframe, completed, &[]);
        let len = u32::try_from(snapshot.len()).unwrap_or(u32::MAX);
        self.scratch[9..RECORD_PREFIX].copy_from_slice(&len.to_le_bytes());
        let crc = crc32(&self.scratch[..RECORD_PREFIX]);
        self.scratch.truncate(RECORD_PREFIX);
        let result = self
            .out
            .write_all(&self.scratch)
            .and_then(|()| self.out.write_all(snapshot))
            .and_then(|()| self.out.write_all(&crc.to_le_bytes()))
            .and_then(|()| self.out.flush());
        if let Err(e) = result {
            self.state = State::Failed(completed);
            return Err(Error::new(ErrorCode::Io, IO_FAILED)
                .with_field("tick")
                .with_value(completed)
                .with_detail("writing a keyframe record")
                .with_source(e));
        }
        self.last_keyframe_tick = Some(completed);
        Ok(())
    }

    /// Records one tick's input, encoded by [`ReplayInput::encode`]; call it
    /// before the tick runs, with the tick it is applied to.
    ///
    /// # Errors
    /// As [`record_input_bytes`](Self::record_input_bytes).
    pub fn record_input<I: ReplayInput + ?Sized>(&mut self, tick: u64, input: &I) -> Result<()> {
        let mut encoded = std::mem::take(&mut self.input_buf);
        encoded.clear();
        input.encode(&mut encoded);
        let result = self.record_input_bytes(tick, &encoded);
        self.input_buf = encoded;
        result
    }

    /// Records one tick's input as raw bytes (at most 1 MiB); call it
    /// before the tick runs, with the tick it is applied to.
    ///
    /// # Errors
    /// * `replay/tick_out_of_order` (InvalidArgument) unless `tick` is
    ///   [`next_tick`](Self::next_tick); nothing is written.
    /// * `replay/input_too_large` (InvalidArgument) for a payload over 1 MiB; nothing is written.
    /// * `replay/tick_out_of_order` (InvalidState) in a recording from a
    ///   later start ([`ReplayHeader::start_tick`]) before its start
    ///   keyframe was recorded.
    /// * `replay/recorder_stopped` (InvalidState) after an earlier write
    ///   failure.
    /// * `replay/io_failed` (Io) if the write fails: the recorder stops
    ///   (every later call returns `replay/recorder_stopped`), and the
    ///   file holds the records before this one.
    pub fn record_input_bytes(&mut self, tick: u64, input: &[u8]) -> Result<()> {
        self.check_open(tick)?;
        self.check_tick(tick, "tick", self.next_tick, "the next input tick")?;
        self.check_start_keyframe(tick)?;
        check_len(input.len(), tick)?;
        self.scratch.clear();
        encode_record(&mut self.scratch, Kind::Input, tick, input);
        self.flush_scratch(tick, "writing an input record")?;
        self.next_tick += 1;
        Ok(())
    }

    /// Records the state hash after `completed` ticks (`world.tick()` after
    /// the tick ran, or 0 for the state after setup). Any completed tick
    /// count may be recorded, not only multiples of the interval.
    ///
    /// # Errors
    /// `replay/tick_out_of_order` unless `completed` equals the number of
    /// input records written and no hash was recorded for it yet;
    /// `replay/recorder_stopped`; `replay/io_failed` (as
    /// [`record_input_bytes`](Self::record_input_bytes)).
    pub fn record_hash(&mut self, completed: u64, hash: u64) -> Result<()> {
        self.check_open(completed)?;
        self.check_tick(
            completed,
            "completed",
            self.next_tick,
            "the number of input records written",
        )?;
        if self.last_hash_tick == Some(completed) {
            return Err(Error::invalid_argument(
                TICK_OUT_OF_ORDER,
                "completed",
                completed,
                "a tick count not yet hashed",
            ));
        }
        self.scratch.clear();
        encode_record(
            &mut self.scratch,
            Kind::Hash,
            completed,
            &hash.to_le_bytes(),
        );
        self.flush_scratch(completed, "writing a state-hash record")?;
        self.last_hash_tick = Some(completed);
        Ok(())
    }

    /// Writes the end record (the recording is complete), flushes and
    /// returns the sink.
    ///
    /// # Errors
    /// `replay/recorder_stopped` after an earlier write failure;
    /// `replay/io_failed` if the write fails.
    pub fn finish(mut self) -> Result<W> {
        let ticks = self.next_tick;
        self.check_open(ticks)?;
        self.check_start_keyframe(ticks)?;
        self.scratch.clear();
        encode_record(&mut self.scratch, Kind::End, ticks, &[]);
        self.flush_scratch(ticks, "writing the end record")?;
        Ok(self.out)
    }

    fn check_open(&self, tick: u64) -> Result<()> {
        match self.state {
            State::Open => Ok(()),
            State::Failed(at) => Err(Error::new(ErrorCode::InvalidState, RECORDER_STOPPED)
                .with_field("tick")
                .with_value(tick)
                .with_detail(format!(
                    "a write failed at tick {at}; the file holds the records before it"
                ))),
        }
    }

    /// A recording from a later start holds its start tick's keyframe
    /// before anything follows it (playback starts from it).
    fn check_start_keyframe(&self, tick: u64) -> Result<()> {
        let start = self.header.start_tick;
        if start == 0 || self.last_keyframe_tick.is_some_and(|k| k >= start) {
            return Ok(());
        }
        Err(Error::new(ErrorCode::InvalidState, TICK_OUT_OF_ORDER)
            .with_field("tick")
            .with_value(tick)
            .with_accepted(format!(
                "the keyframe of the start tick {start} first (record_keyframe)"
            ))
            .with_detail("a recording from a later start is played from that keyframe"))
    }

    fn check_tick(
        &self,
        tick: u64,
        field: &'static str,
        expected: u64,
        what: &'static str,
    ) -> Result<()> {
        if tick == expected {
            return Ok(());
        }
        Err(Error::invalid_argument(
            TICK_OUT_OF_ORDER,
            field,
            tick,
            format!("{expected} ({what})"),
        ))
    }

    /// Writes the scratch buffer with one `write_all` and flushes it.
    fn flush_scratch(&mut self, tick: u64, what: &'static str) -> Result<()> {
        let result = self
            .out
            .write_all(&self.scratch)
            .and_then(|()| self.out.flush());
        result.map_err(|e| {
            self.state = State::Failed(tick);
            Error::new(ErrorCode::Io, IO_FAILED)
                .with_field("tick")
                .with_value(tick)
                .with_detail(what)
                .with_source(e)
        })
    }
}

fn check_len(len: usize, tick: u64) -> Result<()> {
    if len > MAX_PAYLOAD_BYTES as usize {
        return Err(Error::invalid_argument(
            super::INPUT_TOO_LARGE,
            "input",
            format!("{len} bytes at tick {tick}"),
            "at most 1048576 bytes per tick",
        ));
    }
    Ok(())
}
