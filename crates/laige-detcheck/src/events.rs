//! The event ids of laige-detcheck (every id the crate defines lives here).

use laige_core::EventId;

/// `detcheck/config_invalid`: a scenario value outside its range.
pub const CONFIG_INVALID: EventId = EventId::new("detcheck", "config_invalid");
/// `detcheck/snapshot_round_trip`: a world decoded from its own encoded
/// snapshot hashed differently from the world it came from (Failed; field
/// `tick`, detail both hashes).
pub const SNAPSHOT_ROUND_TRIP: EventId = EventId::new("detcheck", "snapshot_round_trip");
