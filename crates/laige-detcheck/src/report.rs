//! The binary's output: plain `key=value` lines that `cargo xtask
//! detcheck` parses (one format, written here and read there).
//!
//! ```text
//! detcheck-output 1
//! build debug_assertions=true overflow_checks=true arch=x86_64 os=linux features=sse2,fma
//! run backend=fixed_point_16_16 platform=x86_64-linux mode=full ticks=100000 entities=99 spawned=18750 despawned=18747 final=0x… digest=0x… replay=verified:21 perturb=none
//! checkpoint backend=fixed_point_16_16 tick=0 hash=0x…
//! ```
//!
//! `replay=` is `verified:N` (N checkpoints reproduced), `diverged:T` (the
//! first differing tick) or `skipped`; `perturb=` is `none` or the
//! perturbed tick (the negative control).

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

/// The platform key of the known answers: `<arch>-<os>` (Fp32Pinned's
/// promise is per platform).
#[must_use]
pub fn platform() -> String {
    format!("{}-{}", std::env::consts::ARCH, std::env::consts::OS)
}

/// The header lines.
#[must_use]
pub fn header(build: &BuildInfo) -> String {
    format!(
        "detcheck-output {OUTPUT_VERSION}\nbuild debug_assertions={} overflow_checks={} arch={} os={} features={}\n",
        build.debug_assertions,
        build.overflow_checks,
        std::env::consts::ARCH,
        std::env::consts::OS,
        if build.features.is_empty() {
            "none".to_owned()
        } else {
            build.features.join(",")
        }
    )
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
        "run backend={} platform={} mode={mode} ticks={} entities={} spawned={} despawned={} final={:#018x} digest={:#018x} replay={replay} perturb={}\n",
        run.backend,
        platform(),
        run.ticks,
        run.entities,
        run.spawned,
        run.despawned,
        run.final_hash(),
        run.digest(),
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
        };
        let text = run_lines(&run, "quick", Some(5));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("run backend=fixed_point_16_16 platform="));
        assert!(lines[0].contains(
            " mode=quick ticks=10 entities=3 spawned=2 despawned=1 final=0x0000000000000abc "
        ));
        assert!(lines[0].ends_with(" replay=verified:2 perturb=5"));
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
