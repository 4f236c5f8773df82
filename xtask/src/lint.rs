//! `cargo xtask lint`: the repository rules of [`tidy`] (crate edges, the
//! determinism lint, render naming no sim type, the code map) — the same
//! functions `cargo test -p xtask` runs as the `tidy` test.

use anyhow::bail;

use crate::run::root;
use crate::{detlint, edges, tidy};

/// Runs every rule and reports every failure. `--list-allowed` also prints
/// every use of the determinism lint's escape hatch; `--rules` prints the
/// determinism rules and exits.
pub fn run(args: &[String]) -> anyhow::Result<()> {
    if args.iter().any(|a| a == "--rules") {
        for (name, why) in detlint::RULES {
            println!("{name:<16} {why}");
        }
        return Ok(());
    }
    if let Some(bad) = args.iter().find(|a| *a != "--list-allowed") {
        bail!("unknown lint option {bad}; accepted: --list-allowed, --rules");
    }
    let list_allowed = !args.is_empty();
    let meta = edges::metadata()?;
    let root = root();
    let mut failed = Vec::new();
    for (name, rule) in tidy::RULES {
        let bad = rule(&root, &meta)?;
        for line in &bad {
            println!("{line}");
        }
        if bad.is_empty() {
            println!("{name}: ok");
        } else {
            println!("{name}: {} failure(s)", bad.len());
            failed.push(*name);
        }
    }
    if list_allowed {
        let scope = &meta["metadata"]["laige"]["determinism"];
        let (_, allowed, n_files) = detlint::lint_paths(
            &root,
            &tidy::strings(&scope["paths"]),
            &tidy::strings(&scope["exclude"]),
        )?;
        for line in &allowed {
            println!("{line}");
        }
        println!(
            "determinism lint: {n_files} file(s), {} allowed use(s) of the escape hatch",
            allowed.len()
        );
    }
    if failed.is_empty() {
        println!("lint: ok");
        Ok(())
    } else {
        bail!("lint failed: {}", failed.join(", "))
    }
}
