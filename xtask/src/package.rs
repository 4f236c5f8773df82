//! `cargo xtask package`: the publishable crates as `cargo publish` would
//! upload them, and proof that a crate outside the workspace builds on
//! them.
//!
//! 1. `cargo package --no-verify` for every workspace member whose
//!    manifest does not say `publish = false`, in one invocation (cargo
//!    packages them in dependency order); step 2 is the verification.
//! 2. The `.crate` files are unpacked into a scratch workspace
//!    (`target/package-check/`) whose `[patch.crates-io]` points every
//!    laige crate at its unpacked package, with one more member: a game
//!    crate whose `main.rs` is the README's first Rust example. There,
//!    `cargo check --tests` compiles every packaged crate's tests (a test
//!    that needs a file outside its package or an unpublished crate fails
//!    here), `cargo test --doc -p laige-engine` runs the packaged doctests
//!    (the README guide among them), and the game crate builds and runs.
//! 3. The docs as docs.rs builds them: `cargo doc` with `--cfg docsrs`,
//!    all features and `-D warnings`, in its own target dir. The
//!    `doc_cfg` feature badges need a nightly rustdoc: `rustup run
//!    nightly cargo` when a nightly toolchain is installed, else the stable toolchain with
//!    `RUSTC_BOOTSTRAP=1` (what docs.rs's nightly does, on this release's
//!    rustdoc).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::run::root;

/// A publishable workspace member: its name and version.
struct Publishable {
    name: String,
    version: String,
}

/// The workspace members that `cargo publish` would accept (no
/// `publish = false` in their manifest).
fn publishable() -> anyhow::Result<Vec<Publishable>> {
    let root = root();
    let manifest: toml::Table = fs::read_to_string(root.join("Cargo.toml"))?.parse()?;
    let version = manifest
        .get("workspace")
        .and_then(|w| w.get("package"))
        .and_then(|p| p.get("version"))
        .and_then(|v| v.as_str())
        .context("workspace.package.version")?
        .to_owned();
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .context("workspace.members")?;
    let mut out = Vec::new();
    for member in members.iter().filter_map(|m| m.as_str()) {
        let path = root.join(member).join("Cargo.toml");
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let pkg: toml::Table = text.parse()?;
        let package = pkg.get("package").context("[package]")?;
        if package.get("publish").and_then(|p| p.as_bool()) == Some(false) {
            continue;
        }
        let name = package
            .get("name")
            .and_then(|n| n.as_str())
            .context("package.name")?;
        out.push(Publishable {
            name: name.to_owned(),
            version: version.clone(),
        });
    }
    Ok(out)
}

fn cargo_in(dir: &Path) -> Command {
    let mut c = crate::run::cargo();
    c.current_dir(dir);
    c
}

/// Runs one step; a failure ends the task.
fn run(name: &str, cmd: Command) -> anyhow::Result<()> {
    if !crate::run::step(name, cmd)? {
        bail!("`{name}` failed");
    }
    Ok(())
}

/// The first ```rust block after the README heading "A game crate".
fn readme_example(readme: &str) -> anyhow::Result<String> {
    let after = readme
        .split_once("## A game crate")
        .context("README: no \"## A game crate\" section")?
        .1;
    let body = after
        .split_once("```rust\n")
        .context("README: no ```rust block in the guide")?
        .1;
    let code = body
        .split_once("```")
        .context("README: unterminated ```rust block")?
        .0;
    // Doctest conventions: a line `# x` is compiled but hidden.
    let mut out = String::new();
    for line in code.lines() {
        let line = line
            .strip_prefix("# ")
            .or_else(|| (line == "#").then_some(""))
            .unwrap_or(line);
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// `cargo xtask package [--allow-dirty]`.
pub fn run_package(allow_dirty: bool) -> anyhow::Result<()> {
    let root = root();
    let crates = publishable()?;
    // `--no-verify`: cargo's own verification builds every package once
    // more in a target dir of its own; step 2 below compiles the same
    // unpacked packages (tests included) and runs the engine's doctests
    // and a game on them, so it catches everything the verification would.
    let mut c = cargo_in(&root);
    c.args(["package", "--no-verify"]);
    if allow_dirty {
        c.arg("--allow-dirty");
    }
    for k in &crates {
        c.args(["-p", &k.name]);
    }
    let names: Vec<&str> = crates.iter().map(|k| k.name.as_str()).collect();
    run(&format!("cargo package {}", names.join(" ")), c)?;

    // The scratch workspace: the unpacked packages and a game crate.
    let scratch = root.join("target/package-check");
    if scratch.exists() {
        fs::remove_dir_all(&scratch).context("clearing target/package-check")?;
    }
    fs::create_dir_all(&scratch)?;
    let mut members = Vec::new();
    let mut patch = String::new();
    for k in &crates {
        let dir = format!("{}-{}", k.name, k.version);
        let file: PathBuf = root.join("target/package").join(format!("{dir}.crate"));
        // `m`: the files get the time of unpacking, not the archive's. The
        // target dir is shared and cargo takes a path crate's earlier build
        // as fresh when no file is newer than it: with the archive's times a
        // stale build of an earlier packaging was reused (seen here:
        // `shape_cast` missing from a days-old `laige-physics`).
        let status = Command::new("tar")
            .arg("xzmf")
            .arg(&file)
            .arg("-C")
            .arg(&scratch)
            .status()
            .context("starting tar")?;
        if !status.success() {
            bail!("unpacking {}", file.display());
        }
        members.push(format!("\"{dir}\""));
        patch.push_str(&format!("{} = {{ path = \"{dir}\" }}\n", k.name));
    }
    members.push("\"readme-game\"".to_owned());
    fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "# Written by `cargo xtask package`: the packaged crates and a game on them.\n\
             [workspace]\nresolver = \"3\"\nmembers = [{}]\n\n[patch.crates-io]\n{patch}",
            members.join(", ")
        ),
    )?;
    let engine = crates
        .iter()
        .find(|k| k.name == "laige-engine")
        .context("laige-engine is not publishable")?;
    let game = scratch.join("readme-game");
    fs::create_dir_all(game.join("src"))?;
    fs::write(
        game.join("Cargo.toml"),
        format!(
            "[package]\nname = \"readme-game\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nlaige-engine = \"{}\"\n",
            engine.version
        ),
    )?;
    let readme = fs::read_to_string(root.join("README.md"))?;
    fs::write(game.join("src/main.rs"), readme_example(&readme)?)?;

    // One target dir with the workspace: registry dependencies built for
    // the workspace are reused.
    let target = root.join("target");
    let mut c = cargo_in(&scratch);
    c.args(["check", "--workspace", "--tests"]);
    c.env("CARGO_TARGET_DIR", &target);
    run("packaged crates: cargo check --tests", c)?;
    let mut c = cargo_in(&scratch);
    c.args(["test", "--doc", "-p", "laige-engine"]);
    c.env("CARGO_TARGET_DIR", &target);
    run("packaged laige-engine: doctests", c)?;
    let mut c = cargo_in(&scratch);
    c.args(["run", "-p", "readme-game"]);
    c.env("CARGO_TARGET_DIR", &target);
    run("the README example on the packaged crates", c)?;

    docs_rs(&crates)
}

/// `cargo doc` as docs.rs runs it, warnings denied.
fn docs_rs(crates: &[Publishable]) -> anyhow::Result<()> {
    let root = root();
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustdoc", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut c = if nightly {
        let mut c = Command::new("rustup");
        c.args(["run", "nightly", "cargo"]);
        c.current_dir(&root);
        c
    } else {
        let mut c = cargo_in(&root);
        c.env("RUSTC_BOOTSTRAP", "1");
        c
    };
    c.args(["doc", "--no-deps", "--all-features"]);
    for k in crates {
        c.args(["-p", &k.name]);
    }
    c.env("RUSTDOCFLAGS", "--cfg docsrs -D warnings");
    c.env("CARGO_TARGET_DIR", root.join("target/docsrs"));
    run(
        &format!(
            "cargo doc --cfg docsrs -D warnings ({})",
            if nightly {
                "nightly"
            } else {
                "RUSTC_BOOTSTRAP"
            }
        ),
        c,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_example_is_the_guides_first_rust_block() {
        let readme = "# x\n```rust\nnot this\n```\n## A game crate in five minutes\n\
                      ```toml\n[x]\n```\n```rust\nfn main() {}\n# let hidden = 1;\n#\n```\n";
        assert_eq!(
            readme_example(readme).unwrap(),
            "fn main() {}\nlet hidden = 1;\n\n"
        );
        assert!(readme_example("no guide").is_err());
    }

    #[test]
    fn dev_crates_are_not_publishable() {
        let names: Vec<String> = publishable().unwrap().into_iter().map(|k| k.name).collect();
        for core in [
            "laige-core",
            "laige-macros",
            "laige-sim",
            "laige-render",
            "laige-engine",
        ] {
            assert!(
                names.iter().any(|n| n == core),
                "{core} missing from {names:?}"
            );
        }
        for dev in [
            "laige-testkit",
            "laige-bench",
            "laige-demo",
            "laige-detcheck",
            "xtask",
        ] {
            assert!(!names.iter().any(|n| n == dev), "{dev} would be published");
        }
    }
}
