//! Deterministic simulation math (being built).
