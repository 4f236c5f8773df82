//! laige-engine (being built).
