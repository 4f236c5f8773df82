//! The binary's output: plain `key=value` lines that `cargo xtask
//! detcheck` parses (one format, written here and read there).
//!
//! ```text
//! detcheck-output 1
//! build debug_assertions=true overflow_checks=true arch=x86_64 os=linux features=sse2,fma
//! run backend=fixed_point_16_16 platform=x86_64-linux mode=full ticks=100000 entities=99 spawned=18750 despawned=18747 final=0x… digest=0x… recording=0x… snapshots=0x… replay=verified:21 perturb=none
//! checkpoint backend=fixed_point_16_16 tick=0 hash=0x…
//! ```
//!
//! `replay=` is `verified:N` (N checkpoints reproduced), `diverged:T` (the
//! first differing tick) or `skipped`; `perturb=` is `none` or the
//! perturbed tick (the negative control); `recording=` hashes the replay's
//! bytes and `snapshots=` every checkpoint's encoded snapshot bytes (each
//! equal on every platform for equal runs).

use std::fmt::Write as _;

use crate::scenario::{ReplayOutcome, RunResult};

/// The format version of the output (first line).
pub const OUTPUT_VERSION: u32 = 1;

/// What the binary knows about how it was built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// `cfg!(debug_assertions)`.
    pub debug_assertions: bool,
    /// Whether integer overflow panics (probed at run time: there is no
    /// stable `cfg` for it).
    pub overflow_checks: bool,
    /// The enabled target features that could change float code
    /// generation if the compiler were allowed to use them (`fma`, `avx2`,
    /// …): a `-C target-cpu=native` build shows them.
    pub features: Vec<&'static str>,
}

impl BuildInfo {
    /// This build (the overflow probe is the caller's: see the binary).
    #[must_use]
    pub fn current(overflow_checks: bool) -> Self {
        let mut features = Vec::new();
        macro_rules! probe {
            ($($f:literal),*) => {$(
                if cfg!(target_feature = $f) {
                    features.push($f);
                }
            )*};
        }
        probe!(
            "sse2", "sse4.1", "avx", "avx2", "fma", "avx512f", "neon", "fp16"
        );
        Self {
            debug_assertions: cfg!(debug_assertions),
            overflow_checks,
            features,
        }
    }
}

/// The architecture part of the platform key: Rust's `target_arch`,
/// except that 32-bit x86 is split by its float unit — `i686` with SSE2,
/// `i586` without (x87 arithmetic, the one pinned-float results can
/// depend on).
#[must_use]
pub fn arch() -> &'static str {
    if cfg!(target_arch = "x86") {
        if cfg!(target_feature = "sse2") {
            "i686"
        } else {
            "i586"
        }
    } else {
        std::env::consts::ARCH
    }
}

/// The OS part of the platform key: Rust's `target_os` (`wasi` for
/// `wasm32-wasip1`, where `std::env::consts::OS` is empty), and `web` for
/// `wasm32-unknown-unknown` (no OS: the browser build).
#[must_use]
pub fn os() -> &'static str {
    if cfg!(target_os = "wasi") {
        "wasi"
    } else if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
        "web"
    } else {
        std::env::consts::OS
    }
}

/// The platform key of the known answers: `<arch>-<os>` (Fp32Pinned's
/// promise is per platform).
#[must_use]
pub fn platform() -> String {
    format!("{}-{}", arch(), os())
}

/// The header lines.
#[must_use]
pub fn header(build: &BuildInfo) -> String {
    format!(
        "detcheck-output {OUTPUT_VERSION}\nbuild debug_assertions={} overflow_checks={} arch={} os={} features={}\n",
        build.debug_assertions,
        build.overflow_checks,
        arch(),
        os(),
        if build.features.is_empty() {
            "none".to_owned()
        } else {
            build.features.join(",")
        }
    )
}

/// The lines of a recording played from elsewhere
/// ([`crossing`](crate::crossing)): `crossing backend=… platform=…
/// verdict=verified:N` or `verdict=diverged:T recorded=0x… replayed=0x…`,
/// then, if asked, `dump tick=T lines=N` followed by the dump's N lines.
#[must_use]
pub fn crossing_lines(c: &crate::crossing::Crossing) -> String {
    let verdict = match c.outcome {
        ReplayOutcome::Skipped => "skipped".to_owned(),
        ReplayOutcome::Verified(n) => format!("verified:{n}"),
        ReplayOutcome::Diverged(d) => format!(
            "diverged:{} recorded={:#018x} replayed={:#018x}",
            d.tick, d.recorded, d.replayed
        ),
    };
    let mut out = format!(
        "crossing backend={} platform={} verdict={verdict}\n",
        c.backend,
        platform()
    );
    if let Some((tick, dump)) = &c.dump {
        let _ = writeln!(out, "dump tick={tick} lines={}", dump.lines().count());
        out.push_str(dump);
        if !dump.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The lines of one run.
#[must_use]
pub fn run_lines(run: &RunResult, mode: &str, perturb: Option<u64>) -> String {
    let replay = match run.replay {
        ReplayOutcome::Skipped => "skipped".to_owned(),
        ReplayOutcome::Verified(n) => format!("verified:{n}"),
        ReplayOutcome::Diverged(d) => format!("diverged:{}", d.tick),
    };
    let mut out = format!(
        "run backend={} platform={} mode={mode} ticks={} entities={} spawned={} despawned={} final={:#018x} digest={:#018x} recording={:#018x} snapshots={:#018x} replay={replay} perturb={}\n",
        run.backend,
        platform(),
        run.ticks,
        run.entities,
        run.spawned,
        run.despawned,
        run.final_hash(),
        run.digest(),
        run.recording,
        run.snapshots,
        perturb.map_or_else(|| "none".to_owned(), |t| t.to_string()),
    );
    for (tick, hash) in &run.checkpoints {
        let _ = writeln!(
            out,
            "checkpoint backend={} tick={tick} hash={hash:#018x}",
            run.backend
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::MathBackend;

    #[test]
    fn run_lines_have_the_documented_shape() {
        let run = RunResult {
            backend: MathBackend::FixedPoint16_16,
            ticks: 10,
            entities: 3,
            spawned: 2,
            despawned: 1,
            checkpoints: vec![(0, 1), (10, 0xabc)],
            replay: ReplayOutcome::Verified(2),
            recording: 0x1234,
            recorded: Vec::new(),
            snapshots: 0x5678,
        };
        let text = run_lines(&run, "quick", Some(5));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("run backend=fixed_point_16_16 platform="));
        assert!(lines[0].contains(
            " mode=quick ticks=10 entities=3 spawned=2 despawned=1 final=0x0000000000000abc "
        ));
        assert!(lines[0].ends_with(
            " recording=0x0000000000001234 snapshots=0x0000000000005678 replay=verified:2 perturb=5"
        ));
        assert_eq!(
            lines[2],
            "checkpoint backend=fixed_point_16_16 tick=10 hash=0x0000000000000abc"
        );
        let h = header(&BuildInfo {
            debug_assertions: true,
            overflow_checks: false,
            features: vec![],
        });
        assert!(
            h.starts_with("detcheck-output 1\nbuild debug_assertions=true overflow_checks=false ")
        );
        assert!(h.ends_with(" features=none\n"));
    }
}
