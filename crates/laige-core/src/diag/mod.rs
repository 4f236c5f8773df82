//! Structured, rate-limited diagnostics (being built).
