//! The build matrix and how each build is made.
//!
//! Each variant that changes code generation gets its own target directory
//! (`target/detcheck/<name>`), so every one stays cached between runs
//! instead of rebuilding the others' artifacts; `debug` and `release` use
//! the ordinary `target/` (shared with `cargo test` / `cargo xtask bench`).
//! Profile changes go through `CARGO_PROFILE_<PROFILE>_<KEY>` variables:
//! nothing is written to any config file.

use std::path::PathBuf;
use std::process::Command;

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
/// overflow checks (issue 7).
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

impl Build {
    pub fn target_dir(&self) -> PathBuf {
        if self.own_dir {
            root().join("target/detcheck").join(self.name)
        } else {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| root().join("target"), PathBuf::from)
        }
    }

    pub fn binary(&self) -> PathBuf {
        self.target_dir()
            .join(if self.release { "release" } else { "debug" })
            .join(format!("laige-detcheck{}", std::env::consts::EXE_SUFFIX))
    }

    /// `cargo build` of the scenario binary for this build.
    pub fn command(&self) -> Command {
        let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        c.current_dir(root());
        c.args([
            "build",
            "--quiet",
            "-p",
            "laige-detcheck",
            "--bin",
            "laige-detcheck",
        ]);
        if self.release {
            c.arg("--release");
        }
        if self.own_dir {
            c.env("CARGO_TARGET_DIR", self.target_dir());
        }
        for (k, v) in self.env {
            c.env(k, v);
        }
        if let Some(flags) = self.rustflags {
            let base = std::env::var("RUSTFLAGS").unwrap_or_default();
            c.env("RUSTFLAGS", format!("{base} {flags}").trim());
        }
        c
    }
}
