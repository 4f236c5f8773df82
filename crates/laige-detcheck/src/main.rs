//! `laige-detcheck`: runs the detcheck scenario and prints its state
//! hashes (the format is `laige_detcheck::report`). Built and run by
//! `cargo xtask detcheck` under each build of its matrix.
//!
//! ```text
//! laige-detcheck [--quick | --ticks N] [--backend ID|all] [--perturb[=TICK]] [--no-replay]
//! ```
//!
//! `--perturb` is the negative control: one entity's velocity is nudged
//! by 2^-16 at the middle tick (or TICK), so every hash from the next
//! checkpoint on must differ from the known answers.
//!
//! Built for `wasm32-unknown-unknown` (the browser), the binary has no
//! command line and no stdout: `main` does nothing and the page drives the
//! exports of [`web`] instead.

#![allow(
    clippy::print_stdout,
    reason = "a command-line tool: stdout is its output"
)]
#![allow(
    clippy::print_stderr,
    reason = "a command-line tool: usage errors go to stderr"
)]

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod web;

/// Whether integer overflow panics in this build (the `overflow-checks`
/// profile setting has no stable `cfg`): add one to `i32::MAX` behind
/// `black_box` under `catch_unwind`, with the panic message silenced.
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn overflow_checks() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let panicked = std::panic::catch_unwind(|| {
        std::hint::black_box(std::hint::black_box(i32::MAX) + std::hint::black_box(1))
    })
    .is_err();
    std::panic::set_hook(hook);
    panicked
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn main() -> std::process::ExitCode {
    let out = laige_detcheck::cli::run(std::env::args_os().skip(1), overflow_checks());
    print!("{}", out.stdout);
    eprint!("{}", out.stderr);
    std::process::ExitCode::from(out.code)
}

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn main() {}
