//! What the physics sync tests share: a world played through a GGRS sync
//! test (check distance 7: every tick past it is re-simulated 7 ticks back
//! and must give the same state) with player 0's scripted actions.

use laige_net::{Advance, NetConfig, NetSession, PlayerInput};
use laige_sim::World;
use laige_sim::input::InputKind;

/// Plays `world` for `ticks` ticks in a sync test of two players, pushing
/// player 0's `Action { id: 1, value }` at each tick `script` names; `each`
/// sees the world after every tick. Panics (failing the test) when a tick
/// does not advance or the session ends.
pub fn run_sync_test<G: PlayerInput>(
    world: World,
    ticks: u64,
    script: impl Fn(u64) -> Option<i32>,
    mut each: impl FnMut(&World),
) -> NetSession<G> {
    let config = NetConfig {
        players: 2,
        max_prediction: 8,
        ..NetConfig::default()
    };
    let mut session = NetSession::<G>::sync_test(world, config, 7).unwrap();
    while session.world().tick() < ticks {
        let tick = session.world().tick();
        if let Some(value) = script(tick) {
            session
                .world_mut()
                .input_mut()
                .push_at(tick, 0, InputKind::Action { id: 1, value })
                .unwrap();
        }
        let advanced = session.advance().unwrap();
        assert_eq!(
            advanced,
            Advance::Ticked,
            "tick {tick}: {:?}",
            session.end()
        );
        each(session.world());
    }
    assert!(session.end().is_none(), "{:?}", session.end());
    session
}
