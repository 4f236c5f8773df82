//! `laige-signaling [PORT]`: a matchbox full-mesh signaling server on
//! 127.0.0.1:PORT (default 0: any free port) until killed. Prints one line,
//! `laige-signaling: ws://127.0.0.1:PORT`, once it listens (the browser
//! tests read the port from it). Every peer is introduced to every other
//! one: one server per session.

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let port = match std::env::args().nth(1).map(|a| a.parse::<u16>()) {
        None => 0,
        Some(Ok(p)) => p,
        Some(Err(_)) => {
            #[expect(clippy::print_stderr, reason = "the binary's usage line")]
            {
                eprintln!("usage: laige-signaling [PORT]");
            }
            return ExitCode::from(2);
        }
    };
    let served = laige_testkit::signaling::serve(port, |port| {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "laige-signaling: ws://127.0.0.1:{port}");
        let _ = out.flush();
    });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            #[expect(clippy::print_stderr, reason = "the binary's one error line")]
            {
                eprintln!("laige-signaling: {e}");
            }
            ExitCode::FAILURE
        }
    }
}
