//! The engine's resources through the public API: every run's world holds
//! the `SimRng` seeded from `[determinism] seed`, hashed, so the seed and
//! every draw reach the report's state hash; game resources are readable
//! in systems.

use laige_engine::{
    Engine, EngineConfig, EngineOptions, MathBackend, Pacing, RNG_RESOURCE, RunLimit, SimRng,
    StateHash,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, StateHash)]
struct Total(u64);

fn run(seed: u64, draw: bool, backend: MathBackend) -> u64 {
    let mut config = EngineConfig::default();
    config.determinism.seed = seed;
    config.determinism.math = backend;
    Engine::builder()
        .config(config)
        .setup(move |world| {
            assert_eq!(*world.resource::<SimRng>()?, SimRng::new(seed));
            assert!(world.hashed_resources().any(|n| n == RNG_RESOURCE));
            world.insert_hashed_resource("test.total", Total::default())?;
            Ok(())
        })
        .system("draw", 0, move |ctx| {
            if draw {
                let v = ctx.resource_mut::<SimRng>()?.below(10);
                ctx.resource_mut::<Total>()?.0 += v;
            }
            Ok(())
        })
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..Default::default()
        })
        .build()
        .unwrap()
        .run_headless(RunLimit::Ticks(30))
        .unwrap()
        .state_hash
}

#[test]
fn the_seeded_rng_is_a_hashed_engine_resource_on_both_backends() {
    for backend in [MathBackend::FixedPoint16_16, MathBackend::FloatPinned32] {
        // Same seed, same draws: the same hash.
        assert_eq!(run(1, true, backend), run(1, true, backend));
        // The seed alone reaches the hash (nothing drawn).
        assert_ne!(run(1, false, backend), run(2, false, backend));
        // Drawing advances the hashed generator.
        assert_ne!(run(1, true, backend), run(1, false, backend));
    }
}

/// The `[log]` section takes effect without the game installing a
/// subscriber: after a run, a process-wide subscriber exists (a second
/// install reports it as already there).
#[test]
fn a_run_installs_the_configured_log_subscriber() {
    use laige_engine::core::diag::{self, SubscriberInit};
    run(3, false, MathBackend::FixedPoint16_16);
    let again = diag::init_subscriber(&EngineConfig::default().log.subscriber_config()).unwrap();
    assert_eq!(again, SubscriberInit::AlreadyInstalled);
}
