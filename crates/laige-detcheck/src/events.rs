//! The event ids of laige-detcheck (every id the crate defines lives here).

use laige_core::EventId;

/// `detcheck/config_invalid`: a scenario value outside its range.
pub const CONFIG_INVALID: EventId = EventId::new("detcheck", "config_invalid");
