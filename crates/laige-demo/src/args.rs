//! The demo's command line: a flat list of flags, parsed by hand (one
//! `match` arm per flag, so adding one is one arm and one field).

use std::path::PathBuf;

/// `laige-demo --help`.
pub const USAGE: &str = "\
laige-demo: a swarm of sprites around a moving attractor, on laige-engine

usage: laige-demo [OPTIONS]

  (no option)            headless: a scripted 5-second session, paced at the
                         frame rate, with progress lines and a final report
  --window               open a window (mouse: attractor; Space: pause;
                         S or Right: step; B/D: spawn/despawn a burst;
                         I: interpolation on/off; Esc or Q: quit)
  --config FILE          load the engine config (TOML; see the laige-engine crate docs)
  --seconds N            run N seconds (headless default 5; windowed: until closed)
  --frames N             run exactly N frames instead
  --entities N           sprites at the start (default 10000)
  --unpaced              headless: run as fast as possible on virtual time
  --gl                   headless: render every frame through the GL pipeline
                         on an offscreen (EGL) context
  --screenshot FILE      write a rendered frame to FILE (binary PPM)
  --screenshot-frame N   the frame to capture (default 30)
  --close-after-frames N windowed: request the window's close after N frames
  --quiet                no progress lines
  --profile              print the profiler's report (tick, frame, per system)
  --mark-startup         print `laige-demo: first tick` and
                         `laige-demo: first frame presented` when they happen
  --record FILE          record the run as a replay (identity, every tick's
                         input, the state hash after every tick)
  --replay FILE          play FILE back headless and unpaced, comparing the
                         state hash after every tick; the backend and seed
                         come from the replay (use the same --config and
                         --entities as the recording)
  -h, --help             this text

exit codes: 0 done, 1 setup failed (also: an unreadable, damaged or
mismatched replay), 2 bad usage, 3 a system failed or the recording
could not be written (a full disk: the file keeps its valid prefix),
4 rendering failed (also: the X server was lost),
5 the replay diverged or compared no state hash (the first differing
tick is printed), 6 the replay file is torn (it ends early; its valid
prefix was verified: \"torn after tick N; verified ticks 0..M\"),
130 / 143 / 129 stopped by SIGINT (Ctrl-C) / SIGTERM / SIGHUP (a second
one exits at once); a recording ends complete in each of these";

/// The parsed command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    /// `--window`.
    pub window: bool,
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--seconds N`.
    pub seconds: Option<u64>,
    /// `--frames N`.
    pub frames: Option<u64>,
    /// `--entities N` (default 10 000).
    pub entities: Option<u32>,
    /// `--unpaced`.
    pub unpaced: bool,
    /// `--gl`.
    pub gl: bool,
    /// `--screenshot FILE`.
    pub screenshot: Option<PathBuf>,
    /// `--screenshot-frame N`.
    pub screenshot_frame: Option<u64>,
    /// `--close-after-frames N`.
    pub close_after_frames: Option<u64>,
    /// `--quiet`.
    pub quiet: bool,
    /// `--profile`.
    pub profile: bool,
    /// `--mark-startup`.
    pub mark_startup: bool,
    /// `--record FILE`.
    pub record: Option<PathBuf>,
    /// `--replay FILE`.
    pub replay: Option<PathBuf>,
    /// `-h` / `--help`.
    pub help: bool,
}

/// Default headless run length: 5 s (long enough to see the bursts of 1 s,
/// 2 s and 3 s and a lap of the attractor; short enough to try often).
pub const DEFAULT_SECONDS: u64 = 5;
/// Default frame to capture: 30 (half a second in, the swarm has moved).
pub const DEFAULT_SCREENSHOT_FRAME: u64 = 30;

impl Args {
    /// Parses the arguments after the program name.
    ///
    /// # Errors
    /// A message naming the bad argument (the caller prints it with the
    /// usage and exits with code 2).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut out = Self::default();
        let mut it = args.into_iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--window" => out.window = true,
                "--config" => out.config = Some(value("--config")?.into()),
                "--seconds" => out.seconds = Some(number(&arg, &value("--seconds")?, 1)?),
                "--frames" => out.frames = Some(number(&arg, &value("--frames")?, 1)?),
                "--entities" => {
                    let n = number(&arg, &value("--entities")?, 0)?;
                    let n = u32::try_from(n)
                        .ok()
                        .filter(|&n| n <= 1 << 24)
                        .ok_or_else(|| format!("--entities {n}: accepted 0..=16777216"))?;
                    out.entities = Some(n);
                }
                "--unpaced" => out.unpaced = true,
                "--gl" => out.gl = true,
                "--screenshot" => out.screenshot = Some(value("--screenshot")?.into()),
                "--screenshot-frame" => {
                    out.screenshot_frame = Some(number(&arg, &value("--screenshot-frame")?, 1)?);
                }
                "--close-after-frames" => {
                    out.close_after_frames =
                        Some(number(&arg, &value("--close-after-frames")?, 1)?);
                }
                "--quiet" => out.quiet = true,
                "--profile" => out.profile = true,
                "--mark-startup" => out.mark_startup = true,
                "--record" => out.record = Some(value("--record")?.into()),
                "--replay" => out.replay = Some(value("--replay")?.into()),
                "-h" | "--help" => out.help = true,
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if out.seconds.is_some() && out.frames.is_some() {
            return Err("--seconds and --frames exclude each other".to_owned());
        }
        if out.replay.is_some()
            && (out.window || out.record.is_some() || out.seconds.is_some() || out.frames.is_some())
        {
            return Err(
                "--replay plays the recorded ticks headless: drop --window, --record, --seconds and --frames"
                    .to_owned(),
            );
        }
        if out.window && (out.unpaced || out.gl) {
            return Err("--unpaced and --gl are headless options (drop --window)".to_owned());
        }
        Ok(out)
    }
}

fn number(flag: &str, text: &str, min: u64) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|&n| n >= min)
        .ok_or_else(|| format!("{flag} {text:?}: expected an integer >= {min}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, String> {
        Args::parse(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn flags_and_values() {
        let a = parse(&["--window", "--entities", "500", "--seconds", "3"]).unwrap();
        assert!(a.window);
        assert_eq!((a.entities, a.seconds), (Some(500), Some(3)));
        let a = parse(&["--frames", "10", "--unpaced", "--gl", "--quiet"]).unwrap();
        assert_eq!(a.frames, Some(10));
        assert!(a.unpaced && a.gl && a.quiet);
        assert_eq!(parse(&[]).unwrap(), Args::default());
    }

    #[test]
    fn bad_usage_is_named() {
        assert_eq!(
            parse(&["--nope"]).unwrap_err(),
            "unknown argument \"--nope\""
        );
        assert_eq!(
            parse(&["--seconds"]).unwrap_err(),
            "--seconds needs a value"
        );
        assert!(parse(&["--seconds", "0"]).unwrap_err().contains(">= 1"));
        assert!(
            parse(&["--entities", "99999999"])
                .unwrap_err()
                .contains("16777216")
        );
        assert!(parse(&["--seconds", "1", "--frames", "2"]).is_err());
        assert!(parse(&["--window", "--unpaced"]).is_err());
        assert!(parse(&["--replay", "a", "--window"]).is_err());
        assert!(parse(&["--replay", "a", "--record", "b"]).is_err());
        assert!(parse(&["--record"]).is_err());
        let a = parse(&["--record", "run.lrp", "--unpaced"]).unwrap();
        assert_eq!(a.record, Some(PathBuf::from("run.lrp")));
    }
}
