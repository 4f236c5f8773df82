//! `#[state_hash(crate = path)]`: the derive works in a crate that reaches
//! laige-sim only through a re-export (a game on laige-engine).

/// Stands in for `laige_engine`, which re-exports laige-sim as `sim`.
mod engine {
    pub use laige_sim as sim;
}

use engine::sim::StateHash;
use engine::sim::StateHasher;

#[derive(Clone, Copy, StateHash)]
#[state_hash(crate = engine::sim)]
struct Score(u32, i64);

#[derive(Clone, Copy, StateHash)]
struct Plain(u32, i64);

#[test]
fn the_re_exported_path_hashes_like_the_default() {
    let hash = |f: &dyn Fn(&mut StateHasher)| {
        let mut h = StateHasher::default();
        f(&mut h);
        h.finish()
    };
    let a = hash(&|h| Score(7, -3).hash_state(h));
    let b = hash(&|h| Plain(7, -3).hash_state(h));
    assert_eq!(a, b);
    assert_ne!(a, hash(&|h| Score(7, -4).hash_state(h)));
}
