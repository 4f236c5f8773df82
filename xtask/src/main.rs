//! Project tasks (being built).
fn main() {}
