//! `cargo xtask lint`: the repository rules of [`tidy`] (crate edges, the
//! determinism lint, render naming no sim type, the code map) — the same
//! functions `cargo test -p xtask` runs as the `tidy` test.

use anyhow::bail;

use crate::run::root;
use crate::{detlint, edges, tidy};

/// `cargo xtask lint`'s options.
#[derive(Debug, Default, clap::Args)]
pub struct Args {
    /// Also print every use of the determinism lint's escape hatch.
    #[arg(long)]
    pub list_allowed: bool,
    /// Print the determinism rules and exit.
    #[arg(long)]
    pub rules: bool,
    /// Rewrite the README's Platforms table from what xtask runs, then lint.
    #[arg(long)]
    pub bless_platforms: bool,
}

/// Runs every rule and reports every failure.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.rules {
        for (name, why) in detlint::RULES {
            println!("{name:<16} {why}");
        }
        return Ok(());
    }
    if args.bless_platforms {
        crate::platforms::bless(&root())?;
    }
    let list_allowed = args.list_allowed;
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
