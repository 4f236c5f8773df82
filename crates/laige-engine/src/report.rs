//! How a run ended ([`ExitReason`], with its process exit code) and what
//! it did ([`RunReport`]).

use std::fmt;

use laige_core::{Error, MathBackend};
use laige_sim::input::InputStats;

use crate::interrupt::StopSignal;

/// Exit code: the run ended normally (its limit, the game's exit, the
/// window closed).
pub const EXIT_OK: u8 = 0;
/// Exit code: the engine could not start (a bad config, a failed setup, no
/// window or GL context). The run never began; nothing to shut down.
pub const EXIT_SETUP_FAILED: u8 = 1;
/// Exit code: bad command-line usage (the demo's; the engine never returns
/// it). The conventional usage-error code of Unix tools.
pub const EXIT_USAGE: u8 = 2;
/// Exit code: a system returned an error (or panicked); the run shut down
/// in order.
pub const EXIT_SYSTEM_FAILED: u8 = 3;
/// Exit code: the render thread failed (a stage error or panic, a lost
/// surface); the run shut down in order.
pub const EXIT_RENDER_FAILED: u8 = 4;
/// Exit code: interrupted (Ctrl-C / SIGINT); the run shut down in order.
/// 130 = 128 + SIGINT, what a shell reports for a process killed by
/// Ctrl-C, so scripts see the usual value. SIGTERM and SIGHUP end a run
/// the same way with 143 and 129 ([`StopSignal::exit_code`]).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code of a replay that did not verify: a state hash differs from
/// the recording, or the playback compared none (or not all) of them.
pub const EXIT_REPLAY_DIVERGED: u8 = 5;
/// Exit code of a torn replay whose valid prefix verified: the file ends
/// early (no end record), and every state hash it holds matched.
pub const EXIT_REPLAY_TORN: u8 = 6;

/// Why a run ended. Every reason goes through the same ordered shutdown.
#[derive(Debug)]
pub enum ExitReason {
    /// The run limit (frames, ticks, duration) was reached.
    Completed,
    /// The game requested the end ([`Control::exit`](crate::Control::exit)).
    GameExit,
    /// The window was closed (a close request from the window system or
    /// through the engine's close proxy).
    WindowClosed,
    /// A stop signal (SIGINT, SIGTERM, SIGHUP), or
    /// [`crate::interrupt::request`] (as SIGINT).
    Interrupted(StopSignal),
    /// A system returned this error (or panicked: `system/system_panicked`).
    SystemFailed(Error),
    /// The render thread failed with this error.
    RenderFailed(Error),
    /// The session that owns the ticks ended the run (a network session:
    /// a peer disconnected, a desync, no handshake in time), with its
    /// documented exit code.
    SessionEnded {
        /// The session's exit code (laige-net: 10 disconnected, 11
        /// desync, 12 sync timeout, 3 a system failed).
        exit_code: u8,
        /// Why, in a sentence.
        reason: String,
    },
}

impl ExitReason {
    /// The process exit code (documented in the laige-engine crate docs): 0 for
    /// the normal ends, [`EXIT_SYSTEM_FAILED`] (3),
    /// [`EXIT_RENDER_FAILED`] (4), 128 + the signal's number for a stop
    /// signal ([`EXIT_INTERRUPTED`] = 130 for SIGINT, 143 SIGTERM, 129
    /// SIGHUP).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Completed | Self::GameExit | Self::WindowClosed => EXIT_OK,
            Self::SystemFailed(_) => EXIT_SYSTEM_FAILED,
            Self::RenderFailed(_) => EXIT_RENDER_FAILED,
            Self::Interrupted(signal) => signal.exit_code(),
            Self::SessionEnded { exit_code, .. } => *exit_code,
        }
    }

    /// A short lowercase name (`window_closed`), as in the
    /// `engine/shutdown` event.
    #[must_use]
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::GameExit => "game_exit",
            Self::WindowClosed => "window_closed",
            Self::Interrupted(_) => "interrupted",
            Self::SystemFailed(_) => "system_failed",
            Self::RenderFailed(_) => "render_failed",
            Self::SessionEnded { .. } => "session_ended",
        }
    }

    /// The error of a failed run.
    #[must_use]
    pub fn error(&self) -> Option<&Error> {
        match self {
            Self::SystemFailed(e) | Self::RenderFailed(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for ExitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if let Self::Interrupted(signal) = self {
            write!(f, " by {signal}")?;
        }
        if let Some(e) = self.error() {
            write!(f, " ({e})")?;
        }
        if let Self::SessionEnded { reason, .. } = self {
            write!(f, " ({reason})")?;
        }
        Ok(())
    }
}

/// What a run did, returned by `run_headless` / `run_windowed` after the
/// ordered shutdown.
#[derive(Debug)]
pub struct RunReport {
    /// Why it ended (and so the exit code).
    pub exit: ExitReason,
    /// The math backend the simulation ran on.
    pub backend: MathBackend,
    /// Completed ticks (`World::tick()` at the end).
    pub ticks: u64,
    /// Frames run by the loop.
    pub frames: u64,
    /// Ticks dropped by the catch-up bound.
    pub dropped_ticks: u64,
    /// Frames that dropped ticks.
    pub dropped_frames: u64,
    /// Frames the renderer finished (0 without rendering).
    pub frames_rendered: u64,
    /// Frames the render handoff dropped because the renderer lagged.
    pub frames_render_dropped: u64,
    /// Frames handed to the renderer (0 without rendering). Every one was
    /// rendered, dropped, or was still outstanding when the run ended:
    /// `frames_submitted = frames_rendered + frames_render_dropped +
    /// frames_outstanding`.
    pub frames_submitted: u64,
    /// Frames handed over but neither rendered nor dropped when the run
    /// ended (a render thread that failed or stopped mid-frame; at most 2).
    pub frames_outstanding: u64,
    /// Median tick duration (system dispatch) over the profiler's window,
    /// ns.
    pub tick_p50_ns: u64,
    /// 99th-percentile tick duration over the profiler's window, ns.
    pub tick_p99_ns: u64,
    /// Tick samples the percentiles are over (the last ones, at most the
    /// profiler's ring capacity).
    pub tick_samples: usize,
    /// The world's state hash at the end (covers the tick count and every
    /// hashed component).
    pub state_hash: u64,
    /// Live entities at the end.
    pub entities: u32,
    /// The input queue's counters.
    pub input: InputStats,
    /// Wall time from the start of the run (setup excluded) to the end of
    /// the shutdown, ns.
    pub wall_ns: i64,
    /// Wall time from the start of the run to the first completed tick,
    /// ns (`None` when no tick completed).
    pub first_tick_wall_ns: Option<i64>,
    /// The profiler's report (tick, frame and per-system lines).
    pub profile: String,
    /// What a recorded run wrote (`EngineBuilder::record`); `None` when the
    /// run was not recorded.
    pub recording: Option<crate::record::Recorded>,
    /// The network session's counters, end and confirmed hashes (a run
    /// with `EngineBuilder::net`; feature `net`).
    #[cfg(feature = "net")]
    pub net: Option<laige_net::NetReport>,
}

impl RunReport {
    /// The process exit code ([`ExitReason::exit_code`]).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        self.exit.exit_code()
    }
}

/// Nanoseconds as milliseconds with three decimals (integer math).
/// A duration in the unit that shows it: ns below 1 µs, µs below 1 ms,
/// ms above (three decimals).
struct Dur(u64);

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns < 1_000 {
            write!(f, "{ns} ns")
        } else if ns < 1_000_000 {
            write!(f, "{}.{:03} µs", ns / 1_000, ns % 1_000)
        } else {
            let us = ns / 1_000;
            write!(f, "{}.{:03} ms", us / 1_000, us % 1_000)
        }
    }
}

impl fmt::Display for RunReport {
    /// The short report a person reads at the end of a run.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "exit:       {} (code {})", self.exit, self.exit_code())?;
        writeln!(f, "backend:    {}", self.backend)?;
        writeln!(
            f,
            "ticks:      {} ({} dropped in {} frames)",
            self.ticks, self.dropped_ticks, self.dropped_frames
        )?;
        if self.frames_submitted == 0 {
            writeln!(f, "frames:     {} (no renderer)", self.frames)?;
        } else {
            // Every frame run was rendered, dropped, outstanding at the end,
            // or never handed over (the frame a failure ended): the numbers
            // add up.
            let unpublished = self.frames.saturating_sub(self.frames_submitted);
            writeln!(
                f,
                "frames:     {} ({} rendered, {} dropped by the renderer, {} outstanding, {} not handed over)",
                self.frames,
                self.frames_rendered,
                self.frames_render_dropped,
                self.frames_outstanding,
                unpublished
            )?;
        }
        writeln!(
            f,
            "tick time:  p50 {}, p99 {} (last {} ticks)",
            Dur(self.tick_p50_ns),
            Dur(self.tick_p99_ns),
            self.tick_samples
        )?;
        writeln!(
            f,
            "input:      {} delivered, {} late, {} overflowed",
            self.input.delivered, self.input.late, self.input.overflowed
        )?;
        writeln!(f, "entities:   {}", self.entities)?;
        if let Some(recording) = &self.recording {
            writeln!(f, "recording:  {recording}")?;
        }
        #[cfg(feature = "net")]
        if let Some(net) = &self.net {
            writeln!(f, "{net}")?;
        }
        write!(f, "state hash: {:016x}", self.state_hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::{ErrorCode, EventId};

    fn report(exit: ExitReason) -> RunReport {
        RunReport {
            exit,
            backend: MathBackend::FixedPoint16_16,
            ticks: 600,
            frames: 601,
            dropped_ticks: 2,
            dropped_frames: 1,
            frames_rendered: 597,
            frames_render_dropped: 3,
            frames_submitted: 601,
            frames_outstanding: 1,
            tick_p50_ns: 412_345,
            tick_p99_ns: 1_020_000,
            tick_samples: 600,
            state_hash: 0x0123_4567_89ab_cdef,
            entities: 10_000,
            input: InputStats {
                pushed: 4,
                delivered: 4,
                late: 1,
                overflowed: 0,
                peak_pending: 2,
            },
            wall_ns: 10_000_000_000,
            first_tick_wall_ns: Some(16_700_000),
            profile: String::new(),
            recording: None,
            #[cfg(feature = "net")]
            net: None,
        }
    }

    #[test]
    fn exit_codes_are_the_documented_ones() {
        let err = || Error::new(ErrorCode::Failed, EventId::new("t", "t"));
        for (reason, code) in [
            (ExitReason::Completed, 0),
            (ExitReason::GameExit, 0),
            (ExitReason::WindowClosed, 0),
            (ExitReason::SystemFailed(err()), 3),
            (ExitReason::RenderFailed(err()), 4),
            (ExitReason::Interrupted(StopSignal::Interrupt), 130),
            (ExitReason::Interrupted(StopSignal::Terminate), 143),
            (ExitReason::Interrupted(StopSignal::Hangup), 129),
            (
                ExitReason::SessionEnded {
                    exit_code: 10,
                    reason: "peer 127.0.0.1:7000 disconnected".to_owned(),
                },
                10,
            ),
        ] {
            assert_eq!(reason.exit_code(), code, "{reason}");
        }
    }

    #[test]
    fn the_short_report_reads_well() {
        insta::assert_snapshot!(report(ExitReason::Completed).to_string(), @r"
        exit:       completed (code 0)
        backend:    fixed_point_16_16
        ticks:      600 (2 dropped in 1 frames)
        frames:     601 (597 rendered, 3 dropped by the renderer, 1 outstanding, 0 not handed over)
        tick time:  p50 412.345 µs, p99 1.020 ms (last 600 ticks)
        input:      4 delivered, 1 late, 0 overflowed
        entities:   10000
        state hash: 0123456789abcdef
        ");
        let failed = report(ExitReason::SystemFailed(
            Error::new(ErrorCode::Failed, EventId::new("demo", "boom")).with_detail("tick 7"),
        ));
        assert!(
            failed
                .to_string()
                .starts_with("exit:       system_failed (demo/boom: failed (tick 7)) (code 3)")
        );
    }

    #[test]
    fn durations_print_in_the_unit_that_shows_them() {
        for (ns, shown) in [
            (0, "0 ns"),
            (541, "541 ns"),
            (999, "999 ns"),
            (1_000, "1.000 µs"),
            (12_345, "12.345 µs"),
            (999_999, "999.999 µs"),
            (1_000_000, "1.000 ms"),
            (16_666_667, "16.666 ms"),
        ] {
            assert_eq!(Dur(ns).to_string(), shown);
        }
        let mut r = report(ExitReason::Completed);
        (
            r.frames_submitted,
            r.frames_rendered,
            r.frames_render_dropped,
        ) = (0, 0, 0);
        assert!(r.to_string().contains("frames:     601 (no renderer)"));
        // A failure that stranded frames: the parts still add up to the total.
        (r.frames, r.frames_submitted, r.frames_rendered) = (54, 53, 0);
        (r.frames_render_dropped, r.frames_outstanding) = (51, 2);
        assert!(r.to_string().contains(
            "frames:     54 (0 rendered, 51 dropped by the renderer, 2 outstanding, 1 not handed over)"
        ));
    }
}
