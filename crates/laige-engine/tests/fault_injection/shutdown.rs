//! Shutdowns that hang, in a real child process (this test binary run
//! again with `LAIGE_FAULT_CHILD` naming the scenario, so the real signal
//! handler and the real process exit are what is checked):
//!
//! - a game stuck in `on_frame`: the first SIGINT cannot end the run (the
//!   loop never reaches its next frame), the second stop signal exits at
//!   once with 128 + its number;
//! - a render stage that never returns (`on_first_present` blocks): the
//!   bounded wait names the stage, the run still ends through the ordered
//!   shutdown with exit code 4 and its report, and the process exits.

#![expect(unsafe_code, reason = "libc::kill sends the real signals")]
#![allow(
    clippy::print_stdout,
    reason = "the child speaks to its parent on stdout; a skip is a visible line"
)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use laige_engine::{
    Control, Engine, EngineOptions, EngineScalar, Game, HeadlessRender, Pacing, RunLimit, Setup,
    World,
};

const CHILD: &str = "LAIGE_FAULT_CHILD";

/// Spawns this binary as the child running `scenario`.
fn spawn_child(scenario: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "shutdown::child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, scenario)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends `signal` to `child`.
fn kill(child: &Child, signal: i32) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) takes plain integers and touches no memory of ours;
    // the pid is our own child's, which has not been reaped yet.
    let rc = unsafe { libc::kill(pid, signal) };
    assert_eq!(rc, 0, "kill({pid}, {signal})");
}

/// Waits for `child` to exit within `limit`; kills it and fails otherwise.
fn wait_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads the child's stdout until `marker`, returning the lines read.
fn read_until(child: &mut Child, marker: &str) -> Vec<String> {
    let stdout = child.stdout.take().unwrap();
    let mut lines = Vec::new();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        let done = line.contains(marker);
        lines.push(line);
        if done {
            break;
        }
    }
    lines
}

#[test]
fn a_second_stop_signal_exits_while_the_run_hangs() {
    let mut child = spawn_child("hang_in_on_frame");
    let lines = read_until(&mut child, "child: stuck");
    assert!(
        lines.iter().any(|l| l.contains("child: stuck")),
        "{lines:?}"
    );
    kill(&child, libc::SIGINT);
    // The first signal only raises the flag: the loop never reaches its
    // next frame, so the process keeps running.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "one signal ended a hung run"
    );
    kill(&child, libc::SIGTERM);
    let status = wait_within(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(143), "128 + SIGTERM, the second signal");
}

#[test]
fn a_render_stage_that_never_returns_ends_the_run_with_code_4() {
    let mut child = spawn_child("stuck_render_stage");
    let status = wait_within(&mut child, Duration::from_secs(30));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    if out.contains("child: no EGL") {
        assert_ne!(
            std::env::var("LAIGE_REQUIRE_GL").as_deref(),
            Ok("1"),
            "no usable EGL: {out}{err}"
        );
        println!("SKIPPED: the stuck render stage needs EGL ({out})");
        return;
    }
    assert_eq!(status.code(), Some(4), "{out}\n{err}");
    assert!(
        out.contains("exit:       render_failed (render_thread/stage_stuck"),
        "{out}"
    );
    assert!(out.contains("submit"), "the stage is named: {out}");
    // The shutdown ran to its end, in order, with the stuck stage logged
    // once.
    let shutdown = err.find("event=shutdown").expect("engine/shutdown");
    let stuck = err.find("event=stage_stuck").expect("stage_stuck");
    let stopped = err.find("event=stopped").expect("engine/stopped");
    assert!(shutdown < stopped && stuck < stopped, "{err}");
    assert_eq!(err.matches("event=stage_stuck").count(), 1, "{err}");
}

/// Stuck in `on_frame` from frame 3 on (prints a marker first).
struct HangInFrame;

impl Game for HangInFrame {
    fn setup<S: EngineScalar>(&mut self, _: &mut Setup<'_>) -> laige_engine::Result<()> {
        Ok(())
    }
    fn on_frame<S: EngineScalar>(&mut self, _: &World, control: &mut Control) {
        if control.frame() >= 3 {
            println!("child: stuck");
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

/// A first-present callback that never returns (it runs on the render
/// thread, inside the submit stage).
fn block_forever() {
    loop {
        std::thread::park();
    }
}

/// The child's side: runs the scenario `LAIGE_FAULT_CHILD` names and exits
/// with the report's code; without it (the ordinary test run) does
/// nothing.
#[test]
fn child() {
    let Ok(scenario) = std::env::var(CHILD) else {
        return;
    };
    let options = EngineOptions {
        pacing: Pacing::Unpaced,
        ..EngineOptions::default()
    };
    laige_engine::core::diag::init_subscriber(&Default::default()).unwrap();
    let report = match scenario.as_str() {
        "hang_in_on_frame" => Engine::builder()
            .game(HangInFrame)
            .options(EngineOptions {
                pacing: Pacing::FrameClock,
                ..options
            })
            .build()
            .and_then(|e| e.run_headless(RunLimit::Unlimited)),
        "stuck_render_stage" => Engine::builder()
            .options(EngineOptions {
                headless_render: HeadlessRender::Gl {
                    width: 64,
                    height: 48,
                },
                on_first_present: Some(block_forever),
                render_stop_timeout: Duration::from_millis(300),
                ..options
            })
            .build()
            .and_then(|e| e.run_headless(RunLimit::Frames(10))),
        other => panic!("unknown scenario {other}"),
    };
    match report {
        Ok(report) => {
            println!("{report}");
            std::process::exit(i32::from(report.exit_code()));
        }
        Err(e) => {
            println!("child: no EGL: {e}");
            std::process::exit(1);
        }
    }
}
