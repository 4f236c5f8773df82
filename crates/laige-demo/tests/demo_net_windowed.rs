//! Windowed network play: a windowed demo host (under `xvfb-run -a`: Xvfb
//! and Mesa) and a headless joiner over 127.0.0.1, every packet through
//! laige-net's `FaultyTransport` (50 ms each way, ±20 ms, 5 % loss), for
//! 1,260 ticks at 120 Hz on 500 sprites.
//!
//! The host plays with `--pilot`: every frame its game raises its pointer
//! (a path that moves every tick) and, at 2 s, 4 s and 6 s of ticks, a B,
//! a B and a D press as game actions — stamped on the loop's clock at the
//! frame's reading, as the window's own events are, while the session
//! waits and skips due ticks. The joiner runs the headless pilot script of
//! player 1 (pointer moves, no key).
//!
//! Checks: both exit 0 (the host's run was windowed); every tick in
//! 1..=1200 is confirmed on both with the same state hash; both end with
//! 1,500 sprites — the host's two bursts and one despawn simulated exactly
//! once on the joiner, which presses no key itself — and the joiner's
//! player 0 pointer is off the centre where the host's own pointer is.
//!
//! `harness = false`: no `xvfb-run` → one `SKIPPED` line and success,
//! unless `LAIGE_REQUIRE_DISPLAY=1` (CI), which makes it a failure.

#![allow(clippy::print_stdout, reason = "a harness-less test reports on stdout")]

#[allow(
    dead_code,
    reason = "its windowed peer runs under xvfb-run: no run_on_display"
)]
mod display_support;
mod net_support;

use std::process::{Command, ExitCode};
use std::time::Duration;

use display_support::{line, skip_or_fail};
use net_support::{DEMO, FAULTS, Scratch, finish, free_port, hashes, pilots, spawn, spawn_command};

/// Ticks compared; each peer runs a little longer so that the other's
/// inputs for these ticks are confirmed on both.
const COMPARED: u64 = 1_200;
const RUN_TICKS: &str = "1260";
/// 500 sprites, two bursts of 1,000, one despawn of 1,000.
const SPRITES_AFTER_PRESSES: u64 = 1_500;

fn have_xvfb_run() -> bool {
    Command::new("xvfb-run")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn check() -> Result<String, String> {
    let scratch = Scratch::new("windowed");
    let port = free_port().to_string();
    // A small window: software GL on a loaded machine still keeps up.
    let small = scratch.path("small.toml");
    std::fs::write(
        &small,
        "[loop]\ntick_rate_hz = 120\n[render]\nwindow_width = 320\nwindow_height = 180\n",
    )
    .map_err(|e| format!("writing {}: {e}", small.display()))?;
    let small = small.to_string_lossy().into_owned();
    let common = |file: &str, config: &str| -> Vec<String> {
        let mut a: Vec<String> = [
            "--config",
            config,
            "--entities",
            "500",
            "--ticks",
            RUN_TICKS,
            "--quiet",
            "--net-hashes",
            &scratch.path(file).to_string_lossy(),
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        a.extend(FAULTS.iter().map(|s| (*s).to_owned()));
        a
    };
    let mut host = common("host.txt", &small);
    host.extend(
        [
            "--window",
            "--pilot",
            // A bound on a run that never reaches its ticks (60 s of
            // frames at 60 Hz); a completed run ends well before.
            "--close-after-frames",
            "3600",
            "--net",
            "host",
            "--port",
            &port,
        ]
        .map(String::from),
    );
    let mut join = common("join.txt", &scratch.config());
    join.extend(["--net", "join", &format!("127.0.0.1:{port}")].map(String::from));
    let h = spawn_command(
        Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x800x24", DEMO])
            .args(&host)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env("RUST_LOG", "info"),
    );
    let j = spawn(&join);
    let (hc, hout, herr) = finish(h, Duration::from_secs(60));
    let (jc, jout, jerr) = finish(j, Duration::from_secs(10));
    let context = || {
        format!("\n--- host\n{hout}\n{herr}\n--- joiner\n{jout}\n{jerr}")
            .lines()
            .filter(|l| !l.contains("event=") || l.contains("WARN") || l.contains("ERROR"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if hc != 0 || jc != 0 {
        return Err(format!("exit codes: host {hc}, joiner {jc}{}", context()));
    }
    if !herr.contains("event=started mode=\"windowed\"") {
        return Err(format!("the host's run was not windowed{}", context()));
    }
    if !hout.contains("exit:       completed (code 0)") {
        return Err(format!("the host did not complete its ticks{}", context()));
    }
    let (a, b) = (
        hashes(&scratch.path("host.txt")),
        hashes(&scratch.path("join.txt")),
    );
    for t in 1..=COMPARED {
        let (ha, hb) = (a.get(&t), b.get(&t));
        if ha.is_none() || hb.is_none() {
            return Err(format!("tick {t} not confirmed: {ha:?} {hb:?}"));
        }
        if ha != hb {
            return Err(format!("tick {t}: host {ha:?}, joiner {hb:?}"));
        }
    }
    let (host_pilots, host_sprites) = pilots(&hout);
    let (join_pilots, join_sprites) = pilots(&jout);
    if (host_sprites, join_sprites) != (SPRITES_AFTER_PRESSES, SPRITES_AFTER_PRESSES) {
        return Err(format!(
            "sprites: host {host_sprites}, joiner {join_sprites}, expected {SPRITES_AFTER_PRESSES} \
             (two bursts and a despawn, each simulated once){}",
            context()
        ));
    }
    if join_pilots.first().is_none_or(|&p| p == (0, 0)) {
        return Err(format!(
            "the joiner never saw the host's pointer move: {join_pilots:?}{}",
            context()
        ));
    }
    Ok(format!(
        "demo_net_windowed: ok ({COMPARED} ticks confirmed with equal hashes on both; \
         {join_sprites} sprites on both; player 0 at {:?} on the host, {:?} on the joiner)",
        host_pilots.first(),
        join_pilots.first()
    ))
}

fn main() -> ExitCode {
    if !have_xvfb_run() {
        return skip_or_fail(
            "demo_net_windowed",
            "no xvfb-run",
            "xvfb-run (Debian: xvfb)",
        );
    }
    match check() {
        Ok(msg) => {
            line(&msg);
            line("demo_net_windowed: 1 passed; 0 failed");
            ExitCode::SUCCESS
        }
        Err(e) => {
            line(&format!("FAILED: demo_net_windowed: {e}"));
            ExitCode::FAILURE
        }
    }
}
