//! The input log: the events each tick delivered, as text — one line per
//! tick with input, `TICK HEX`, HEX being the engine's tick-input encoding
//! (`laige_engine::record::encode_tick_input`, the replay format's input
//! record). The page writes it (`laige-demo-web`'s `laige_input_log`) and
//! `laige-demo --input-log FILE` plays it back exactly (each event at its
//! recorded tick and time), so a browser run's keys and pointer can be
//! checked against a native run of the same input.
//!
//! ```
//! use laige_demo::input_log;
//! use laige_engine::input::{ButtonState, InputEvent, InputKind, KeyCode, ScriptAt};
//!
//! let kind = InputKind::Key { key: KeyCode::B, state: ButtonState::Pressed };
//! let event = InputEvent { tick: 7, time_ns: 116_700_000, seq: 0, kind };
//! let mut log = String::new();
//! input_log::push_line(&mut log, 7, &[event]);
//! let script = input_log::parse(&log)?;
//! assert_eq!(script, vec![(ScriptAt::Exact { tick: 7, time_ns: 116_700_000 }, kind)]);
//! # Ok::<(), laige_engine::Error>(())
//! ```

use std::fmt::Write as _;

use laige_engine::input::{InputEvent, InputKind, ScriptAt};
use laige_engine::record::{decode_tick_input, encode_tick_input};
use laige_engine::{Error, ErrorCode, Result};

/// The error id of a line that does not parse.
pub const INPUT_LOG_INVALID: laige_engine::core::EventId =
    laige_engine::core::EventId::new("demo", "input_log_invalid");

/// Appends the line of `tick`'s delivered `events` (nothing when there
/// are none).
pub fn push_line(log: &mut String, tick: u64, events: &[InputEvent]) {
    if events.is_empty() {
        return;
    }
    let mut bytes = Vec::new();
    encode_tick_input(events, &mut bytes);
    let _ = write!(log, "{tick} ");
    for b in bytes {
        let _ = write!(log, "{b:02x}");
    }
    log.push('\n');
}

/// The script of a log: every event at its recorded tick and time.
///
/// # Errors
/// `demo/input_log_invalid` naming the line that is not `TICK HEX` or
/// whose bytes do not decode.
pub fn parse(text: &str) -> Result<Vec<(ScriptAt, InputKind)>> {
    let mut script = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = |what: &str| {
            Error::new(ErrorCode::InvalidArgument, INPUT_LOG_INVALID)
                .with_field("line")
                .with_value(n + 1)
                .with_detail(what.to_owned())
        };
        let (tick, hex) = line
            .trim()
            .split_once(' ')
            .ok_or_else(|| bad("not `TICK HEX`"))?;
        let tick: u64 = tick.parse().map_err(|_| bad("the tick is not a number"))?;
        if hex.len() % 2 != 0 {
            return Err(bad("odd hex length"));
        }
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("zz"), 16))
            .collect::<std::result::Result<Vec<u8>, _>>()
            .map_err(|_| bad("not hex"))?;
        let events = decode_tick_input(&bytes).map_err(|e| bad(&e.to_string()))?;
        script.extend(
            events
                .into_iter()
                .map(|(time_ns, kind)| (ScriptAt::Exact { tick, time_ns }, kind)),
        );
    }
    Ok(script)
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_engine::input::{CoordSpace, InputPoint};

    #[test]
    fn a_log_round_trips_and_damage_is_refused() {
        let ev = |tick, kind| InputEvent {
            tick,
            time_ns: 1_000 * tick.cast_signed(),
            seq: 0,
            kind,
        };
        let moved = InputKind::MouseMove {
            position: InputPoint { x: -256, y: 512 },
            space: CoordSpace::World,
        };
        let mut log = String::new();
        push_line(&mut log, 3, &[ev(3, moved)]);
        push_line(&mut log, 4, &[]);
        push_line(&mut log, 9, &[ev(9, moved), ev(9, moved)]);
        assert_eq!(log.lines().count(), 2);
        let script = parse(&log).unwrap();
        assert_eq!(script.len(), 3);
        assert_eq!(
            script[0],
            (
                ScriptAt::Exact {
                    tick: 3,
                    time_ns: 3_000
                },
                moved
            )
        );
        assert_eq!(parse("3 0").unwrap_err().field(), Some("line"));
        assert!(parse("x 00").is_err());
        let cut = &log[..log.find('\n').unwrap() - 2];
        assert!(parse(cut).is_err());
    }
}
