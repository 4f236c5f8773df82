//! `cargo xtask lint`: the crate-edge check and the determinism lint.

use anyhow::bail;

use crate::detlint;
use crate::edges;
use crate::run::root;

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Runs both checks. `--list-allowed` also prints every escape-hatch use;
/// `--rules` prints the rules and exits.
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
    let mut failed = Vec::new();
    if let Err(e) = edges::check(&meta) {
        println!("{e:#}");
        failed.push("crate edges".to_owned());
    }

    let scope = &meta["metadata"]["laige"]["determinism"];
    let paths = strings(&scope["paths"]);
    let exclude = strings(&scope["exclude"]);
    if paths.is_empty() {
        bail!("no determinism lint scope: set [workspace.metadata.laige.determinism] paths");
    }
    let (bad, allowed, n_files) = detlint::lint_paths(&root(), &paths, &exclude)?;
    for line in &bad {
        println!("{line}");
    }
    if list_allowed {
        for line in &allowed {
            println!("{line}");
        }
    }
    println!(
        "determinism lint: {} file(s), {} violation(s), {} allowed use(s) of the escape hatch",
        n_files,
        bad.len(),
        allowed.len()
    );
    if !bad.is_empty() {
        failed.push("determinism lint".to_owned());
    }
    if failed.is_empty() {
        println!("lint: ok");
        Ok(())
    } else {
        anyhow::bail!("lint failed: {}", failed.join(", "))
    }
}
