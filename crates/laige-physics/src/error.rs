//! The crate's error constructors: one shape of `laige_core::Error` per
//! rejection, field and accepted range named.

use laige_core::{Error, EventId};

/// An out-of-range `field` of value `value`; `accepted` says the range.
#[cold]
pub(crate) fn out_of_range(
    id: EventId,
    field: &'static str,
    value: impl std::fmt::Display,
    accepted: &'static str,
) -> Error {
    Error::out_of_range(id, field, value.to_string(), accepted)
}

/// An invalid `field` (not a range: a wrong shape, a missing part).
#[cold]
pub(crate) fn invalid(
    id: EventId,
    field: &'static str,
    value: impl std::fmt::Display,
    accepted: &'static str,
) -> Error {
    Error::invalid_argument(id, field, value.to_string(), accepted)
}
