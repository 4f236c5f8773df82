//! `laige-demo-web`: the demo in a browser (`wasm32-unknown-unknown`,
//! built into a page by `cargo xtask web`). `main` runs when the page
//! instantiates the module: it installs the panic report, reads the
//! page's address for options and starts the engine's web run on the
//! page's `<canvas id="laige">`.
//!
//! The address's query options: `entities=N` (default 10 000),
//! `ticks=N` (end the run after N ticks; default never), `script=S` (the
//! native headless session's scripted input for S seconds —
//! `headless_script`: the pointer's diamond, the bursts — instead of none;
//! the mouse and keys work either way), `interpolate=0` (draw each tick's
//! positions, not blended by alpha), `hash_every=N` (record the state hash
//! every N ticks; default 60), `panic_at=N` (panic at tick N: how a test
//! sees that a panic reaches the page), `backend=B` (`fixed_point_16_16`,
//! the default, or `float_pinned_32`). The view fits the arena to the
//! canvas's size.
//!
//! `signal=ws://HOST:PORT/ROOM&players=N` (default 2): the page is one
//! player of a WebRTC session, as `laige-demo --net webrtc --signal URL
//! --players N` is natively (any mix of pages and native peers in one
//! room): seated by peer id, this seat's pilot script as input, the
//! confirmed state hashes logged (`laige_net_hashes` once the run ended).
//! `fault_latency_ms=MS&fault_jitter_ms=MS&fault_loss_per_mille=N`: the
//! session's datagrams through laige-net's fault wrapper, as the native
//! `--fault-latency-ms`, `--fault-jitter-ms`, `--fault-loss-per-mille`.
//!
//! What the page (and the browser test) reads: the exports of `page.rs`,
//! which the page puts on `window.laigeDemo` — `laige_hash_at` (the
//! recorded state hash at a tick), `laige_status` (frames, ticks, presented
//! frames, drops, first-present time, the end), `laige_input_log` (every
//! tick's delivered input), `laige_net_hashes` (a session's confirmed
//! hashes, as `--net-hashes` writes them), `laige_desync_dump` (a session's
//! desynced tick, as `--dump-dir` writes it) — `window.laigeSeat` (this
//! player's seat, once the room is full) and `window.laigePanic`, set with the message
//! of a Rust panic before the module traps (the message also goes to
//! `console.error`), and `window.laigeEnd`, the report's line when the run
//! ends.

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod page;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn main() {
    page::start();
}

/// Natively there is no page to run on: the `laige-demo` binary is the
/// native demo.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn main() {
    #[expect(
        clippy::print_stderr,
        reason = "the one line of a binary built for the wrong target"
    )]
    {
        eprintln!("laige-demo-web runs in a browser: `cargo xtask web --serve`");
    }
    std::process::exit(2);
}
