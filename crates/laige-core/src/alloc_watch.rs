//! The allocation watch (being built).
