//! Per-player input: the game's fixed-size [`PlayerInput`] (what GGRS
//! sends each tick), and [`PlayerInputs`], every player's input for the
//! tick being simulated, as the systems read it.

use laige_sim::input::InputEvent;
use laige_sim::{DecodeError, Entities, StateHash, StateHasher, StateReader, StateWriter};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Most players in one session: 4 (GGRS handles more; four is what the
/// sessions here are tested with).
pub const MAX_PLAYERS: usize = 4;

/// The game's input for one player and one tick: the only game data sent
/// over the network, so keep it small and fixed-size (a few integers or
/// bit flags; GGRS serializes it with bincode and compresses runs of equal
/// inputs).
///
/// `Default` is "no input" (a disconnected player's input). Equality
/// drives prediction: GGRS predicts a remote player repeats its last
/// input and rolls back when the real one differs, so quantize analog
/// values.
///
/// ```
/// use laige_net::PlayerInput;
/// use laige_sim::StateHash;
/// use laige_sim::input::{InputEvent, InputKind};
///
/// #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash, serde::Serialize, serde::Deserialize)]
/// struct Steer { dx: i8, dy: i8 }
///
/// impl PlayerInput for Steer {
///     fn from_events(previous: Self, events: &[InputEvent]) -> Self {
///         let mut s = previous;
///         for e in events {
///             if let InputKind::Action { id: 1, value } = e.kind {
///                 s.dx = value.clamp(-1, 1) as i8;
///             }
///         }
///         s
///     }
/// }
/// ```
pub trait PlayerInput:
    Copy
    + Default
    + PartialEq
    + Eq
    + StateHash
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + std::fmt::Debug
    + 'static
{
    /// The local player's input for one tick from the input events
    /// delivered for it (in delivery order), given the previous tick's
    /// input (held keys stay held).
    fn from_events(previous: Self, events: &[InputEvent]) -> Self;
}

/// Whether a player's input for the tick is known or guessed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum InputStatus {
    /// The player's real input (a local player's is always confirmed).
    #[default]
    Confirmed,
    /// GGRS's prediction (the last confirmed input repeated); the tick is
    /// re-simulated if the real input differs.
    Predicted,
    /// The player left; the input is `Default`.
    Disconnected,
}

impl From<ggrs::InputStatus> for InputStatus {
    fn from(s: ggrs::InputStatus) -> Self {
        match s {
            ggrs::InputStatus::Confirmed => Self::Confirmed,
            ggrs::InputStatus::Predicted => Self::Predicted,
            ggrs::InputStatus::Disconnected => Self::Disconnected,
        }
    }
}

/// Every player's input for the tick being simulated: a component on one
/// entity the session spawns, rewritten before each tick. Read it in a
/// system with [`PlayerInputs::of`].
///
/// Its state hash covers the inputs, not the statuses: a tick that was
/// simulated on a correct prediction and never re-simulated must hash as on
/// the peer that had the real input. For the same reason a system must not
/// let [`status`](Self::status) change simulation state (use it for
/// presentation: a "predicted" marker, a lag indicator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerInputs<I> {
    inputs: [I; MAX_PLAYERS],
    status: [InputStatus; MAX_PLAYERS],
    players: u8,
}

impl<I: PlayerInput> PlayerInputs<I> {
    pub(crate) fn new(players: usize) -> Self {
        Self {
            inputs: [I::default(); MAX_PLAYERS],
            status: [InputStatus::Confirmed; MAX_PLAYERS],
            players: u8::try_from(players.min(MAX_PLAYERS)).unwrap_or(1),
        }
    }

    /// Confirmed inputs of `inputs.len()` players (a session record's tick).
    pub(crate) fn confirmed(inputs: &[I]) -> Self {
        let mut s = Self::new(inputs.len());
        for (slot, input) in s.inputs.iter_mut().zip(inputs) {
            *slot = *input;
        }
        s
    }

    /// Sets each GGRS player handle's input into its seat (`seat_of`); a
    /// seat no handle has gets the default input, status
    /// [`InputStatus::Disconnected`].
    pub(crate) fn set_seats(&mut self, inputs: &[(I, ggrs::InputStatus)], seat_of: &[usize]) {
        let mut taken = [false; MAX_PLAYERS];
        for ((input, status), &seat) in inputs.iter().zip(seat_of) {
            if seat < MAX_PLAYERS {
                self.inputs[seat] = *input;
                self.status[seat] = (*status).into();
                taken[seat] = true;
            }
        }
        for seat in (0..usize::from(self.players)).filter(|&s| !taken[s]) {
            self.inputs[seat] = I::default();
            self.status[seat] = InputStatus::Disconnected;
        }
    }

    /// Gives `seat` the default input and the status
    /// [`InputStatus::Disconnected`] (a lost player's input after the
    /// frame the survivors agreed on).
    pub(crate) fn set_disconnected(&mut self, seat: usize) {
        if seat < usize::from(self.players) {
            self.inputs[seat] = I::default();
            self.status[seat] = InputStatus::Disconnected;
        }
    }

    /// Gives every seat no handle has (`seat_of`) the default input and
    /// the status [`InputStatus::Disconnected`].
    pub(crate) fn mark_empty(&mut self, seat_of: &[usize]) {
        for seat in (0..usize::from(self.players)).filter(|s| !seat_of.contains(s)) {
            self.inputs[seat] = I::default();
            self.status[seat] = InputStatus::Disconnected;
        }
    }

    /// The current tick's inputs, from the session's input entity (`None`
    /// outside a session).
    #[must_use]
    pub fn of(entities: &Entities) -> Option<Self> {
        entities.ecs().query::<&Self>().iter().next().copied()
    }

    /// The number of players.
    #[must_use]
    pub fn players(&self) -> usize {
        usize::from(self.players)
    }

    /// Player `player`'s input (`Default` past the player count).
    #[must_use]
    pub fn get(&self, player: usize) -> I {
        if player < self.players() {
            self.inputs[player]
        } else {
            I::default()
        }
    }

    /// Whether player `player`'s input is confirmed, predicted or that of
    /// a disconnected player.
    #[must_use]
    pub fn status(&self, player: usize) -> InputStatus {
        self.status
            .get(player)
            .copied()
            .unwrap_or(InputStatus::Disconnected)
    }

    /// `(player, input, status)` for every player.
    pub fn iter(&self) -> impl Iterator<Item = (usize, I, InputStatus)> + '_ {
        (0..self.players()).map(|p| (p, self.inputs[p], self.status[p]))
    }
}

impl<I: PlayerInput> StateHash for PlayerInputs<I> {
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u8(self.players);
        for input in &self.inputs[..self.players()] {
            input.hash_state(hasher);
        }
    }

    const ENCODABLE: bool = I::ENCODABLE;

    /// The bytes the hash reads: the player count, then each player's
    /// input (the statuses are presentation, not state).
    fn encode_state(&self, out: &mut StateWriter<'_>) {
        out.write_u8(self.players);
        for input in &self.inputs[..self.players()] {
            input.encode_state(out);
        }
    }

    /// Decoded inputs have the status [`InputStatus::Confirmed`] (the
    /// session sets each tick's statuses before it runs).
    fn decode_state(input: &mut StateReader<'_>) -> Result<Self, DecodeError> {
        let at = input.position();
        let players = input.read_u8()?;
        if !(1..=MAX_PLAYERS).contains(&usize::from(players)) {
            return Err(input.invalid(at, "PlayerInputs players", u128::from(players), "1..=4"));
        }
        let mut s = Self::new(usize::from(players));
        for slot in &mut s.inputs[..usize::from(players)] {
            *slot = I::decode_state(input)?;
        }
        Ok(s)
    }

    fn hash_layout(hasher: &mut StateHasher) {
        hasher.write_bytes(b"PlayerInputs");
        I::hash_layout(hasher);
    }
}
