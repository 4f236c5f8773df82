//! laige-sim (being built).
