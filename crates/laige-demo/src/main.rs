//! The laige demo game (being built; see issue 6).

fn main() {}
