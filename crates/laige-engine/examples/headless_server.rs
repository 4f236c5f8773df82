//! # A headless, server-style run from a TOML config
//!
//! **Motivation.** An authoritative server runs the same simulation as a
//! client, with no window and no renderer, paced on the real clock at its
//! own tick rate, configured from a file, and reports when it stops (by
//! its time limit, or Ctrl-C).
//!
//! **Implementation.** `examples/server.toml` sets a 30 Hz tick, the
//! bit-exact Q16.16 backend, a seed and JSON logs. The "server" keeps a
//! hashed `Lobby` resource: scripted `Action { id: JOIN }` events stand in
//! for clients connecting; a system counts them and advances the match
//! clock. The run is paced (`Pacing::FrameClock`) for two seconds of real
//! time; Ctrl-C ends it early through the same ordered shutdown (exit code
//! 130).
//!
//! ```text
//! cargo run -p laige-engine --example headless_server
//! cargo run -p laige-engine --example headless_server -- path/to/other.toml
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program prints its report"
)]

use std::time::Duration;

use laige_engine::prelude::*;

const JOIN: u32 = 1;

#[derive(Clone, Copy, Debug, Default, StateHash)]
struct Lobby {
    clients: u32,
    match_ticks: u64,
}

fn main() -> std::process::ExitCode {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/examples/server.toml").to_owned());
    let run = || -> Result<RunReport> {
        Engine::builder()
            .config_file(&path)?
            .setup(|world| {
                world.insert_hashed_resource("server.lobby", Lobby::default())?;
                Ok(())
            })
            .system("server/lobby", 0, |ctx| {
                let joined = ctx
                    .input()
                    .iter()
                    .filter(|e| matches!(e.kind, InputKind::Action { id: JOIN, .. }))
                    .count();
                let lobby = ctx.resource_mut::<Lobby>()?;
                lobby.clients += u32::try_from(joined).unwrap_or(u32::MAX);
                if lobby.clients >= 2 {
                    lobby.match_ticks += 1;
                }
                Ok(())
            })
            .scripted_input([
                (
                    ScriptAt::TimeNs(100_000_000),
                    InputKind::Action { id: JOIN, value: 0 },
                ),
                (
                    ScriptAt::TimeNs(400_000_000),
                    InputKind::Action { id: JOIN, value: 0 },
                ),
            ])
            .options(EngineOptions {
                pacing: Pacing::FrameClock,
                ..EngineOptions::default()
            })
            .build()?
            .run_headless(RunLimit::Duration(Duration::from_secs(2)))
    };
    match run() {
        Ok(report) => {
            println!("{report}");
            std::process::ExitCode::from(report.exit_code())
        }
        Err(e) => {
            eprintln!("headless_server: {e}");
            std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED)
        }
    }
}
