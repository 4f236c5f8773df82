//! The build matrix and how each build is made.
//!
//! Each variant that changes code generation gets its own target directory
//! (`target/detcheck/<name>`), so every one stays cached between runs
//! instead of rebuilding the others' artifacts; `debug` and `release` use
//! the ordinary `target/` (shared with `cargo test` / `cargo xtask bench`).
//! Profile changes go through `CARGO_PROFILE_<PROFILE>_<KEY>` variables:
//! nothing is written to any config file.
//!
//! Beside the host (x86_64), the scenario is cross-built for the targets in
//! [`TARGETS`] (into `target/detcheck/cross`) and run on this machine: the
//! 32-bit x86 ones natively, the others through the runner that
//! `.cargo/config.toml` sets for the triple (QEMU user mode, Node's WASI),
//! which is read from there so that `cargo run/test --target` and detcheck
//! use one definition.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Context;

use super::verdict::Expect;
use crate::run::root;

/// One build of the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Build {
    pub name: &'static str,
    pub release: bool,
    /// `CARGO_PROFILE_*` settings.
    pub env: &'static [(&'static str, &'static str)],
    /// Extra `RUSTFLAGS` (appended to the caller's).
    pub rustflags: Option<&'static str>,
    /// Its own target directory (otherwise `target/`).
    pub own_dir: bool,
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
        own_dir: false,
        flags: "opt 0, overflow-checks",
        expect: Expect {
            debug_assertions: true,
            overflow_checks: true,
        },
    },
    Build {
        name: "debug-no-overflow",
        release: false,
        env: &[("CARGO_PROFILE_DEV_OVERFLOW_CHECKS", "false")],
        rustflags: None,
        own_dir: true,
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
        own_dir: false,
        flags: "opt 3",
        expect: Expect {
            debug_assertions: false,
            overflow_checks: false,
        },
    },
    Build {
        name: "release-overflow",
        release: true,
        env: &[("CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS", "true")],
        rustflags: None,
        own_dir: true,
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
        own_dir: true,
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
        own_dir: true,
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
        own_dir: true,
        flags: "opt 3, target-cpu=native",
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
    Target {
        triple: Some("wasm32-wasip1"),
        name: "wasm32-wasip1",
        platform: "wasm32-wasi",
        how: "Node's WASI",
        varies: "32-bit, little-endian, wasm floats",
        builds: &["release"],
        short: true,
        math_suite: false,
        control: false,
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
            if t.triple.is_none() && only.is_some_and(|o| !o.iter().any(|x| x.name == b.name)) {
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

fn cross_dir() -> PathBuf {
    root().join("target/detcheck/cross")
}

impl Variant {
    /// `release` on the host, `aarch64-unknown-linux-gnu/release` on a
    /// cross target.
    pub fn label(&self) -> String {
        match self.target.triple {
            None => self.build.name.to_owned(),
            Some(t) => format!("{t}/{}", self.build.name),
        }
    }

    pub fn target_dir(&self) -> PathBuf {
        if self.target.triple.is_some() {
            cross_dir()
        } else if self.build.own_dir {
            root().join("target/detcheck").join(self.build.name)
        } else {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root().join("target"), PathBuf::from)
        }
    }

    pub fn binary(&self) -> PathBuf {
        let mut dir = self.target_dir();
        if let Some(t) = self.target.triple {
            dir.push(t);
        }
        let exe = if self.target.name.starts_with("wasm32") {
            ".wasm"
        } else {
            std::env::consts::EXE_SUFFIX
        };
        dir.join(if self.build.release {
            "release"
        } else {
            "debug"
        })
        .join(format!("laige-detcheck{exe}"))
    }

    /// `cargo build` of the scenario binary for this variant.
    pub fn command(&self) -> Command {
        let mut c = cargo();
        c.args([
            "build",
            "--quiet",
            "-p",
            "laige-detcheck",
            "--bin",
            "laige-detcheck",
        ]);
        if self.build.release {
            c.arg("--release");
        }
        if let Some(t) = self.target.triple {
            c.args(["--target", t]);
            c.env("CARGO_TARGET_DIR", self.target_dir());
        } else if self.build.own_dir {
            c.env("CARGO_TARGET_DIR", self.target_dir());
        }
        for (k, v) in self.build.env {
            c.env(k, v);
        }
        if let Some(flags) = self.build.rustflags {
            let base = std::env::var("RUSTFLAGS").unwrap_or_default();
            c.env("RUSTFLAGS", format!("{base} {flags}").trim());
        }
        c
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

/// The laige-core math test suite for a cross target: the unit tests of
/// `math::` and every `tests/math_*.rs` (the heavy `#[ignore]`d ones
/// excepted), built and run by cargo through the target's runner.
pub fn math_suite(triple: &str, no_run: bool) -> Vec<Command> {
    let base = |c: &mut Command| {
        c.args(["test", "-p", "laige-core", "--target", triple]);
        c.arg(if no_run { "--no-run" } else { "--no-fail-fast" });
        c.env("CARGO_TARGET_DIR", cross_dir());
        // A property failing on a target whose floats are not binary32
        // (x87) must not write a regression seed into the source tree.
        c.env("PROPTEST_DISABLE_FAILURE_PERSISTENCE", "1");
    };
    let mut lib = cargo();
    base(&mut lib);
    lib.arg("--lib");
    if !no_run {
        lib.args(["--", "math::"]);
    }
    let mut tests = cargo();
    base(&mut tests);
    tests.args(["--test", "math_*"]);
    if no_run {
        // One build covers both.
        tests.arg("--lib");
        return vec![tests];
    }
    vec![lib, tests]
}
