//! The build matrix and how each build is made.
//!
//! The builds share two target directories, so that what they have in
//! common is compiled once: the `debug` builds use the ordinary `target/`
//! (their build scripts and proc macros are the workspace tests' own), and
//! every optimized build — the host's five and each cross target's — uses
//! `target/detcheck`, where one set of host-side artifacts (proc macros,
//! build scripts) serves them all. Cargo keeps the variants apart by their
//! profile settings (each has its own artifact hash); the host-side
//! settings a variant would change are pinned back (`*_BUILD_OVERRIDE_*`)
//! and `target-cpu=native` goes through `--target <host>`, which keeps
//! `RUSTFLAGS` off the host-side artifacts. Each finished binary is copied
//! to `target/detcheck/bin/<variant>/` before the next build replaces the
//! one cargo leaves in the profile directory. Profile changes go through
//! `CARGO_PROFILE_<PROFILE>_<KEY>` variables: nothing is written to any
//! config file.
//!
//! Beside the host (x86_64), the scenario is cross-built for the targets in
//! [`TARGETS`] (all of them in one cargo invocation, which keeps both cores
//! busy through each crate's serial front end) and run on this machine: the
//! 32-bit x86 ones natively, the others through the runner that
//! `.cargo/config.toml` sets for the triple (QEMU user mode, Wine, Node's
//! WASI, headless Chromium),
//! which is read from there so that `cargo run/test --target` and detcheck
//! use one definition.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Context;

use super::verdict::Expect;
use crate::run::{root, unoptimized_deps_config};

/// One build of the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Build {
    pub name: &'static str,
    pub release: bool,
    /// `CARGO_PROFILE_*` settings.
    pub env: &'static [(&'static str, &'static str)],
    /// Extra `RUSTFLAGS` (appended to the caller's).
    pub rustflags: Option<&'static str>,
    /// The flags the table shows.
    pub flags: &'static str,
    pub expect: Expect,
}

/// debug, release, opt-level 1 and s, target-cpu=native, with and without
/// overflow checks.
pub const MATRIX: &[Build] = &[
    Build {
        name: "debug",
        release: false,
        env: &[],
        rustflags: None,
        flags: "opt 0, overflow-checks",
        expect: Expect {
            debug_assertions: true,
            overflow_checks: true,
        },
    },
    Build {
        name: "debug-no-overflow",
        release: false,
        // The host-side artifacts (proc macros, build scripts) keep the
        // dev profile's checks: shared with the other debug build.
        env: &[
            ("CARGO_PROFILE_DEV_OVERFLOW_CHECKS", "false"),
            ("CARGO_PROFILE_DEV_BUILD_OVERRIDE_OVERFLOW_CHECKS", "true"),
        ],
        rustflags: None,
        flags: "opt 0, no overflow-checks",
        expect: Expect {
            debug_assertions: true,
            overflow_checks: false,
        },
    },
    Build {
        name: "release",
        release: true,
        env: &[],
        rustflags: None,
        flags: "opt 3",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
    Build {
        name: "release-overflow",
        release: true,
        // Shared host-side artifacts, as above.
        env: &[
            ("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true"),
            (
                "CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OVERFLOW_CHECKS",
                "false",
            ),
        ],
        rustflags: None,
        flags: "opt 3, overflow-checks",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: true,
        },
    },
    Build {
        name: "opt-level-1",
        release: true,
        env: &[("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1")],
        rustflags: None,
        flags: "opt 1",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
    Build {
        name: "opt-level-s",
        release: true,
        env: &[("CARGO_PROFILE_RELEASE_OPT_LEVEL", "s")],
        rustflags: None,
        flags: "opt s",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
    Build {
        name: "native",
        release: true,
        env: &[],
        rustflags: Some("-C target-cpu=native"),
        flags: "opt 3, target-cpu=native",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
    // wasm32 only: the 128-bit SIMD instructions every browser runs (the
    // Q16.16 column loops in lanes, `laige_core::math::simd128`). The
    // browser row's first build: the page ships it (`cargo xtask web`);
    // the plain build there is opt-in (`--builds release`). The lanes' bits
    // are also checked against the scalar ops in every run by the
    // wasm32-wasip1 math suite, which is built with SIMD128 (its
    // `math::simd128` tests), and by the web bench's same_bits.
    Build {
        name: "simd128",
        release: true,
        env: &[],
        rustflags: Some("-C target-feature=+simd128"),
        flags: "opt 3, +simd128",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
];

/// Ticks of the short scenario: the full scenario's first 20 000 ticks
/// with the same checkpoint spacing, so its answers are a prefix of the
/// full ones (emulated targets, where a tick costs 5–20× more).
pub const SHORT_TICKS: u64 = 20_000;

/// The physics scene's ticks on the `short` (emulated) targets: its first
/// two checkpoints (the whole scene costs minutes per backend under QEMU).
pub const PHYSICS_SHORT_TICKS: u64 = 1_000;

/// One target of the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The rustc target triple; `None` is the host (no `--target`).
    pub triple: Option<&'static str>,
    /// The triple the docs show (the host's included).
    pub name: &'static str,
    /// The platform key its binary reports (`laige_detcheck::report::platform`).
    pub platform: &'static str,
    /// How its binaries run here.
    pub how: &'static str,
    /// What the target varies: pointer width, byte order, float unit.
    pub varies: &'static str,
    /// The builds of [`MATRIX`] made for it.
    pub builds: &'static [&'static str],
    /// Runs the short scenario in full mode.
    pub short: bool,
    /// Runs the laige-core math test suite (`cargo test --target`).
    pub math_suite: bool,
    /// Runs the negative control.
    pub control: bool,
    /// Its float unit computes in IEEE binary32 (false for x87): where
    /// not, math-suite failures other than the fixed-point known-answer
    /// hash are recorded instead of failing detcheck.
    pub pinned_exact: bool,
}

/// The host and the cross targets, in table order.
pub const TARGETS: &[Target] = &[
    Target {
        triple: None,
        name: "x86_64-unknown-linux-gnu",
        platform: "x86_64-linux",
        how: "native",
        varies: "64-bit, little-endian, SSE2",
        builds: &[
            "debug",
            "debug-no-overflow",
            "release",
            "release-overflow",
            "opt-level-1",
            "opt-level-s",
            "native",
        ],
        short: false,
        math_suite: false,
        control: true,
        pinned_exact: true,
    },
    Target {
        triple: Some("aarch64-unknown-linux-gnu"),
        name: "aarch64-unknown-linux-gnu",
        platform: "aarch64-linux",
        how: "QEMU user mode",
        varies: "64-bit, little-endian, NEON",
        builds: &["release"],
        short: true,
        math_suite: true,
        control: true,
        pinned_exact: true,
    },
    Target {
        triple: Some("s390x-unknown-linux-gnu"),
        name: "s390x-unknown-linux-gnu",
        platform: "s390x-linux",
        how: "QEMU user mode",
        varies: "64-bit, big-endian",
        builds: &["release"],
        short: true,
        math_suite: true,
        control: false,
        pinned_exact: true,
    },
    Target {
        triple: Some("i686-unknown-linux-gnu"),
        name: "i686-unknown-linux-gnu",
        platform: "i686-linux",
        how: "native (32-bit)",
        varies: "32-bit, little-endian, SSE2",
        builds: &["release"],
        short: false,
        math_suite: true,
        control: false,
        pinned_exact: true,
    },
    Target {
        triple: Some("i586-unknown-linux-gnu"),
        name: "i586-unknown-linux-gnu",
        platform: "i586-linux",
        how: "native (32-bit)",
        varies: "32-bit, little-endian, x87 floats",
        builds: &["release"],
        short: false,
        math_suite: true,
        control: false,
        pinned_exact: false,
    },
    // Windows: the same x86-64 code generator as the host's, another ABI,
    // runtime and linker (MinGW-w64), its OS's own system libraries (Wine's
    // implementation of them: the binary runs on this CPU, not emulated).
    Target {
        triple: Some("x86_64-pc-windows-gnu"),
        name: "x86_64-pc-windows-gnu",
        platform: "x86_64-windows",
        how: "Wine",
        varies: "64-bit, little-endian, SSE2, Windows x64 ABI",
        builds: &["release"],
        short: false,
        math_suite: true,
        control: false,
        pinned_exact: true,
    },
    Target {
        triple: Some("wasm32-wasip1"),
        name: "wasm32-wasip1",
        platform: "wasm32-wasi",
        how: "Node's WASI",
        varies: "32-bit, little-endian, wasm floats",
        builds: &["release"],
        short: true,
        math_suite: true,
        control: false,
        pinned_exact: true,
    },
    // The browser: the same module format as WASI, another engine's code
    // generator (V8 in headless Chromium, through wasm-bindgen's glue).
    // Fast enough for the full scenario (about 1.3 s per backend here).
    // No math suite: a test harness does not run in a page, and the WASI
    // row already runs the suite under V8 (Node).
    Target {
        triple: Some("wasm32-unknown-unknown"),
        name: "wasm32-unknown-unknown",
        platform: "wasm32-web",
        how: "headless Chromium (V8)",
        varies: "32-bit, little-endian, wasm floats",
        // SIMD128 first: the build the page ships.
        builds: &["simd128", "release"],
        short: false,
        math_suite: false,
        control: true,
        pinned_exact: true,
    },
];

/// One build of the scenario binary for one target.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    pub target: &'static Target,
    pub build: Build,
}

/// Every variant of the matrix (host builds first, in matrix order), or
/// those whose build is in `only` on the host (`--builds`) and, with
/// `cross`, the cross targets.
pub fn variants(only: Option<&[Build]>, cross: bool) -> Vec<Variant> {
    let mut out = Vec::new();
    for t in TARGETS {
        if t.triple.is_some() && !cross {
            continue;
        }
        for name in t.builds {
            let Some(b) = MATRIX.iter().find(|b| b.name == *name) else {
                continue;
            };
            let asked = only.is_some_and(|o| o.iter().any(|x| x.name == b.name));
            if t.triple.is_none() && only.is_some() && !asked {
                continue;
            }
            // A cross target's builds past its first are opt-in.
            if t.triple.is_some() && b.name != t.builds[0] && !asked {
                continue;
            }
            out.push(Variant {
                target: t,
                build: *b,
            });
        }
    }
    out
}

/// The target directory of the optimized builds and the math suites.
fn detcheck_dir() -> PathBuf {
    root().join("target/detcheck")
}

/// The ordinary target directory (`CARGO_TARGET_DIR` or `target/`).
fn shared_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// The host's target triple (`rustc -vV`), for the builds that pass
/// `--target` on the host.
pub fn host_triple() -> anyhow::Result<&'static str> {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    if let Some(h) = HOST.get() {
        return Ok(h);
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(&rustc)
        .arg("-vV")
        .output()
        .with_context(|| format!("starting {rustc} -vV"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let host = text
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .with_context(|| format!("{rustc} -vV names no host"))?;
    Ok(HOST.get_or_init(|| host.trim().to_owned()))
}

impl Variant {
    /// Whether it runs the short scenario (and the physics scene's short
    /// cut): on an emulated target, where a tick costs 5–20× more, and in
    /// an unoptimized build, where it costs about 10× more. The long
    /// scenario's overflow checks stay covered by `release-overflow`,
    /// which runs it in full.
    pub fn short(&self) -> bool {
        self.target.short || !self.build.release
    }

    /// `release` on the host, `aarch64-unknown-linux-gnu/release` on a
    /// cross target.
    pub fn label(&self) -> String {
        match self.target.triple {
            None => self.build.name.to_owned(),
            Some(t) => format!("{t}/{}", self.build.name),
        }
    }

    /// The target directory cargo builds it in (a cross build with its
    /// own `RUSTFLAGS` in a directory of its own: cargo does not keep
    /// artifacts apart by their flags, so two builds would undo each other).
    pub fn target_dir(&self) -> PathBuf {
        if self.build.rustflags.is_some() && self.target.triple.is_some() {
            detcheck_dir().join(self.build.name)
        } else if self.build.release {
            detcheck_dir()
        } else {
            shared_dir()
        }
    }

    /// The binary detcheck runs: the build's copy, kept apart from the
    /// other builds of the same directory and profile.
    pub fn binary(&self) -> PathBuf {
        let exe = if self.target.name.starts_with("wasm32") {
            ".wasm"
        } else if self.target.name.contains("-windows-") {
            ".exe"
        } else {
            std::env::consts::EXE_SUFFIX
        };
        detcheck_dir()
            .join("bin")
            .join(self.label().replace('/', "--"))
            .join(format!("laige-detcheck{exe}"))
    }

    /// `cargo build` of the scenario binary for this variant's build and,
    /// for a cross build, every triple of `triples` (one invocation);
    /// cargo's JSON messages name each executable as it is ready.
    pub fn command(&self, triples: &[&str]) -> anyhow::Result<Command> {
        let mut c = cargo();
        c.args([
            "build",
            "--quiet",
            "--message-format=json-render-diagnostics",
            "-p",
            "laige-detcheck",
            "--bin",
            "laige-detcheck",
        ]);
        if self.build.release {
            c.arg("--release");
        }
        for t in triples {
            c.args(["--target", t]);
        }
        if self.build.rustflags.is_some() && triples.is_empty() {
            // Target units only: proc macros and build scripts stay shared.
            c.args(["--target", host_triple()?]);
        }
        c.env("CARGO_TARGET_DIR", self.target_dir());
        for (k, v) in self.build.env {
            c.env(k, v);
        }
        if let Some(flags) = self.build.rustflags {
            let base = std::env::var("RUSTFLAGS").unwrap_or_default();
            c.env("RUSTFLAGS", format!("{base} {flags}").trim());
        }
        Ok(c)
    }

    /// The scenario command: the binary, through the target's runner.
    pub fn run_command(&self) -> anyhow::Result<Command> {
        let bin = self.binary();
        Ok(match self.target.triple.map(runner).transpose()? {
            Some(Some(r)) => {
                let mut c = Command::new(&r[0]);
                c.args(&r[1..]).arg(bin);
                c
            }
            _ => Command::new(bin),
        })
    }
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(root());
    c
}

/// `target.<triple>.runner` of `.cargo/config.toml` (string or array; a
/// program path with a slash is relative to the workspace root, as cargo
/// resolves it), or `None` where binaries run natively.
pub fn runner(triple: &str) -> anyhow::Result<Option<Vec<String>>> {
    let path = root().join(".cargo/config.toml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let doc: toml::Table = toml::from_str(&text).context(".cargo/config.toml is not TOML")?;
    let Some(v) = doc
        .get("target")
        .and_then(|t| t.get(triple))
        .and_then(|t| t.get("runner"))
    else {
        return Ok(None);
    };
    let mut words: Vec<String> = match v {
        toml::Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
        toml::Value::Array(a) => a
            .iter()
            .map(|w| w.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .with_context(|| format!("target.{triple}.runner has a non-string word"))?,
        _ => anyhow::bail!("target.{triple}.runner is neither a string nor an array"),
    };
    if words.is_empty() {
        anyhow::bail!("target.{triple}.runner is empty");
    }
    if words[0].contains('/') && !words[0].starts_with('/') {
        words[0] = root().join(&words[0]).to_string_lossy().into_owned();
    }
    Ok(Some(words))
}

/// The profile of the math suites: the release profile (opt-level 3, what
/// a game ships, for laige-core and [`OPTIMIZED_DEPS`](crate::run::OPTIMIZED_DEPS); the
/// other dependencies at 0, [`math_suite_config`]) with the test profile's
/// debug assertions and overflow checks, which the suite relies on (its properties prove that no
/// fixed-point op overflows only where an overflow panics). The host-side
/// artifacts (proc macros, build scripts) keep the release profile's
/// settings, so that they are the release scenario builds' own in
/// [`detcheck_dir`]. The same settings as the `test-opt` profile of
/// `cargo xtask test`'s heavy tests, under the release profile's name for
/// that sharing.
pub const MATH_SUITE_PROFILE: &[(&str, &str)] = &[
    ("CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS", "true"),
    ("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true"),
    (
        "CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_DEBUG_ASSERTIONS",
        "false",
    ),
    (
        "CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OVERFLOW_CHECKS",
        "false",
    ),
];

/// `--config` arguments of the math suites' cargo commands: every
/// dependency but the code under test at opt-level 0
/// ([`unoptimized_deps_config`] of the release profile). Host-side units
/// already build at opt-level 0 (the build-override's default), so they
/// stay the scenario builds' own.
pub fn math_suite_config() -> Vec<String> {
    unoptimized_deps_config("release")
}

/// The flags the table shows for a math suite.
pub const MATH_SUITE_FLAGS: &str = "opt 3 (deps except libm: 0), debug-assertions, overflow-checks";

/// The laige-core math test suite for the cross targets `triples`: the
/// unit tests of `math::` and every `tests/math_*.rs` (the heavy
/// `#[ignore]`d ones excepted), built in [`MATH_SUITE_PROFILE`] and run by
/// cargo through each target's runner. With `no_run`, one command builds
/// the suites of every triple; otherwise there is a library and a
/// test-file command per triple.
pub fn math_suite(triples: &[&str], no_run: bool) -> Vec<Command> {
    let base = |c: &mut Command, triples: &[&str]| {
        c.args(["test", "--release", "-p", "laige-core"]);
        c.args(math_suite_config());
        for t in triples {
            c.args(["--target", t]);
        }
        c.arg(if no_run { "--no-run" } else { "--no-fail-fast" });
        c.env("CARGO_TARGET_DIR", detcheck_dir());
        for (k, v) in MATH_SUITE_PROFILE {
            c.env(k, v);
        }
        // The WASI suite with SIMD128 (every browser and Node run it): its
        // `math::simd128` tests compare the Q16.16 lanes with the scalar
        // ops; the other tests run as without it. Only wasm32-wasip1's
        // units see the flag, and only the suite's (the scenario builds
        // have other profile settings, so they are other artifacts).
        c.env(
            "CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS",
            "-C target-feature=+simd128",
        );
        // A property failing on a target whose floats are not binary32
        // (x87) must not write a regression seed into the source tree.
        c.env("PROPTEST_DISABLE_FAILURE_PERSISTENCE", "1");
    };
    if no_run {
        // One build covers both, for every triple.
        let mut all = cargo();
        base(&mut all, triples);
        all.args([
            "--quiet",
            "--message-format=json-render-diagnostics",
            "--lib",
            "--test",
            "math_*",
        ]);
        return vec![all];
    }
    let mut out = Vec::new();
    for t in triples {
        let mut lib = cargo();
        base(&mut lib, &[t]);
        lib.args(["--lib", "--", "math::"]);
        let mut tests = cargo();
        base(&mut tests, &[t]);
        tests.args(["--test", "math_*"]);
        out.push(lib);
        out.push(tests);
    }
    out
}
