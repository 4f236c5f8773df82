//! Session records: every confirmed tick's inputs of all players and the
//! state hash after it, in laige-sim's replay format, so the replay
//! verifier re-runs a network session offline, bit for bit
//! ([`replay_session`]).
//!
//! A tick's record is written once the state after it is final (its
//! inputs confirmed): the inputs are those of the tick's last simulation
//! (a tick simulated on a wrong prediction is re-simulated with the right
//! inputs before it becomes final). One input record: the player count
//! (one byte), then each player's input, bincode-encoded (GGRS's own
//! encoding of the input type: fixed-size, little-endian).

use std::io::Write;

use laige_core::{Error, ErrorCode, Result, event};
use laige_sim::World;
use laige_sim::replay::{self, Replay, ReplayRecorder, Verification, WorldTarget};

use crate::events;
use crate::input::{MAX_PLAYERS, PlayerInput, PlayerInputs};

/// Where a session writes its record.
pub(crate) type SessionRecorder = ReplayRecorder<Box<dyn Write>>;

/// Appends the record of one tick's inputs to `out`.
pub(crate) fn encode<I: PlayerInput>(inputs: &PlayerInputs<I>, out: &mut Vec<u8>) {
    out.clear();
    out.push(u8::try_from(inputs.players()).unwrap_or(0));
    for (_, input, _) in inputs.iter() {
        // A Vec<u8> writer never fails.
        let _ = bincode::serialize_into(&mut *out, &input);
    }
}

/// The inputs of one tick's record.
///
/// # Errors
/// `replay/input_invalid` for bytes that are not such a record.
fn decode<I: PlayerInput>(bytes: &[u8]) -> Result<[I; MAX_PLAYERS]> {
    let bad = || {
        replay::input_invalid(
            "net.player_inputs",
            format!("{} bytes", bytes.len()),
            "a player count (1..=4) and one bincode input per player",
        )
    };
    let (&players, mut rest) = bytes.split_first().ok_or_else(bad)?;
    if !(1..=MAX_PLAYERS).contains(&usize::from(players)) {
        return Err(bad());
    }
    let mut out = [I::default(); MAX_PLAYERS];
    for slot in out.iter_mut().take(usize::from(players)) {
        *slot = bincode::deserialize_from(&mut rest).map_err(|_| bad())?;
    }
    if !rest.is_empty() {
        return Err(bad());
    }
    Ok(out)
}

/// A failed record write: logged once; the session plays on unrecorded.
#[cold]
pub(crate) fn record_failed(err: &Error) {
    event!(Error, events::RECORD_FAILED, error = %err);
}

/// Re-runs a session record on `world` — set up as the session's world
/// was before its session started (the same game setup) — and compares
/// the state hash after every recorded tick (a record of a player who
/// joined a running session starts from its start tick's keyframe, loaded
/// into `world`): laige-sim's replay verifier
/// with each tick's recorded inputs written to the world's
/// [`PlayerInputs`] (registered and spawned here as the session did).
///
/// # Errors
/// `snapshot/…` or registration errors from preparing the world;
/// `replay/input_invalid` for a damaged input record; otherwise as
/// [`laige_sim::replay::verify`] (a divergence is in the result, not an
/// error).
pub fn replay_session<I: PlayerInput>(replay: &Replay, world: &mut World) -> Result<Verification> {
    let entity = if replay.start_tick() == 0 {
        // The session's initial PlayerInputs are in the tick-0 hash: the
        // player count comes from the first record.
        let players = replay
            .input(0)
            .and_then(|b| b.first())
            .map_or(1, |&p| usize::from(p));
        crate::session::install_inputs::<I>(world, players)?
    } else {
        // A record of a player who joined later starts from the host's
        // world at its start tick, player inputs included.
        world.register_hashed_as::<PlayerInputs<I>>("net.player_inputs")?;
        let schedule = world.schedule_systems();
        let nothing = |_: &mut World, _: u64, _: &[u8]| Ok(());
        replay::load_start_keyframe(replay, &mut WorldTarget::new(world, &schedule, nothing))?;
        crate::session::inputs_entity::<I>(world).ok_or_else(|| {
            replay::input_invalid(
                "net.player_inputs",
                "none in the start keyframe",
                "the session world's player inputs",
            )
        })?
    };
    let schedule = world.schedule_systems();
    let mut target = WorldTarget::new(world, &schedule, |w: &mut World, _tick, bytes: &[u8]| {
        let decoded = decode::<I>(bytes)?;
        let players = usize::from(bytes[0]);
        let current = w
            .query_one_mut::<&mut PlayerInputs<I>>(entity)
            .ok_or_else(|| Error::new(ErrorCode::InvalidState, events::RECORD_FAILED))?;
        *current = PlayerInputs::confirmed(&decoded[..players]);
        Ok(())
    });
    replay::verify(replay, &mut target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(
        Clone,
        Copy,
        Debug,
        Default,
        PartialEq,
        Eq,
        laige_sim::StateHash,
        serde::Serialize,
        serde::Deserialize,
    )]
    struct In {
        x: i16,
        keys: u8,
    }

    impl PlayerInput for In {
        fn from_events(previous: Self, _: &[laige_sim::input::InputEvent]) -> Self {
            previous
        }
    }

    #[test]
    fn a_tick_record_round_trips_and_damage_is_refused() {
        let inputs = PlayerInputs::confirmed(&[In { x: -3, keys: 1 }, In { x: 700, keys: 0 }]);
        let mut bytes = Vec::new();
        encode(&inputs, &mut bytes);
        assert_eq!(bytes.len(), 1 + 2 * 3);
        let back = decode::<In>(&bytes).unwrap();
        assert_eq!(back[..2], [In { x: -3, keys: 1 }, In { x: 700, keys: 0 }]);
        assert!(decode::<In>(&bytes[..4]).is_err());
        assert!(decode::<In>(&[]).is_err());
        assert!(decode::<In>(&[9]).is_err());
        let mut long = bytes.clone();
        long.push(0);
        assert!(decode::<In>(&long).is_err());
    }
}
