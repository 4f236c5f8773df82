//! A game's setup that fails is logged once through the engine: an argument
//! laige-sim rejected by its own warn, anything else by the engine's
//! `engine/setup_failed`. (A test binary of its own: the rate limiter is
//! per process and per id, and no other test here raises these ids; the
//! one `engine/setup_failed` of this binary is the game's own error's.)

use laige_engine::core::EventId;
use laige_engine::core::diag::{CapturedEvent, capture_events};
use laige_engine::sim::events::SYSTEM_NAME_INVALID;
use laige_engine::{
    Engine, EngineOptions, EngineScalar, Error, ErrorCode, Game, Pacing, RunLimit, Setup, events,
};

/// The game's own setup error (no layer logged it).
const LEVEL_MISSING: EventId = EventId::new("setup_errors_test", "level_missing");

/// A game whose setup fails the way `reject` says.
struct Failing {
    reject: Reject,
}

#[derive(Clone, Copy)]
enum Reject {
    /// A system with an empty name: laige-sim rejects the argument.
    EmptySystemName,
    /// The game's own error.
    Own,
}

impl Game for Failing {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> laige_engine::Result<()> {
        match self.reject {
            Reject::EmptySystemName => setup.world().register_system("", 0, |_| Ok(())),
            Reject::Own => Err(Error::new(ErrorCode::Failed, LEVEL_MISSING).with_detail("level 3")),
        }
    }
}

/// Builds and runs the game; its error and every event of the attempt.
fn attempt(reject: Reject) -> (Error, Vec<CapturedEvent>) {
    let mut game = Failing { reject };
    let (result, events) = capture_events(|| {
        Engine::builder()
            .game(&mut game)
            .options(EngineOptions {
                pacing: Pacing::Unpaced,
                handle_ctrl_c: false,
                ..EngineOptions::default()
            })
            .build()
            .and_then(|engine| engine.run_headless(RunLimit::Frames(5)))
    });
    match result {
        Err(e) => (e, events),
        Ok(report) => panic!("the setup must fail, the run ended {:?}", report.exit),
    }
}

/// The events that name `id`: its own, or another event carrying it.
fn naming(events: &[CapturedEvent], id: EventId) -> Vec<&CapturedEvent> {
    let text = format!("{}/{}", id.subsystem(), id.event());
    events
        .iter()
        .filter(|e| e.is(id) || e.to_string().contains(&text))
        .collect()
}

#[test]
fn an_argument_rejected_in_setup_is_logged_once_by_the_part_that_rejected_it() {
    let (err, events) = attempt(Reject::EmptySystemName);
    assert_eq!(err.id(), SYSTEM_NAME_INVALID);
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    let logged = naming(&events, SYSTEM_NAME_INVALID);
    assert_eq!(logged.len(), 1, "{events:?}");
    assert!(logged[0].is(SYSTEM_NAME_INVALID), "{events:?}");
    assert!(
        !events.iter().any(|e| e.is(events::SETUP_FAILED)),
        "{events:?}"
    );
}

#[test]
fn the_games_own_setup_error_is_logged_once_as_setup_failed() {
    let (err, events) = attempt(Reject::Own);
    assert_eq!(err.id(), LEVEL_MISSING);
    let logged = naming(&events, LEVEL_MISSING);
    assert_eq!(logged.len(), 1, "{events:?}");
    assert!(logged[0].is(events::SETUP_FAILED), "{events:?}");
    assert!(
        logged[0]
            .field("error")
            .is_some_and(|e| e.contains("level 3")),
        "{events:?}"
    );
}
