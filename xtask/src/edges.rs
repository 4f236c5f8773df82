//! The crate-edge check: the architecture's dependency rules, read from
//! `cargo metadata`.
//!
//! - laige-core depends on no other laige crate;
//! - laige-render never depends on laige-sim (directly or transitively);
//! - laige-sim never depends on laige-render.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use anyhow::{Context, bail};

use crate::run::root;

/// The forbidden edges: (from, to) — `to` must not be reachable from `from`.
const FORBIDDEN: &[(&str, &str)] = &[
    ("laige-render", "laige-sim"),
    ("laige-render", "laige-engine"),
    ("laige-sim", "laige-render"),
    ("laige-sim", "laige-engine"),
    ("laige-core", "laige-sim"),
    ("laige-core", "laige-render"),
    ("laige-core", "laige-engine"),
    ("laige-core", "laige-macros"),
];

/// `cargo metadata --no-deps` as JSON.
pub fn metadata() -> anyhow::Result<serde_json::Value> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(root())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Runs the check; an error lists every violated edge.
pub fn check(meta: &serde_json::Value) -> anyhow::Result<()> {
    let graph = workspace_graph(meta);
    let violations = violations(&graph);
    if violations.is_empty() {
        println!("crate edges: ok ({} workspace crates)", graph.len());
        Ok(())
    } else {
        for v in &violations {
            println!("crate edge violated: {v}");
        }
        bail!("{} crate-edge violation(s)", violations.len())
    }
}

/// Workspace crate → its (normal and build) dependencies on workspace crates.
fn workspace_graph(meta: &serde_json::Value) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph = BTreeMap::new();
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let names: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect();
    for p in &packages {
        let Some(name) = p["name"].as_str() else {
            continue;
        };
        let deps = p["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(*d))
            .map(str::to_owned)
            .collect();
        graph.insert(name.to_owned(), deps);
    }
    graph
}

fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_owned()];
    while let Some(n) = stack.pop() {
        for d in graph.get(&n).into_iter().flatten() {
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    seen
}

fn violations(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    FORBIDDEN
        .iter()
        .filter(|(from, to)| graph.contains_key(*from) && reachable(graph, from).contains(*to))
        .map(|(from, to)| format!("{from} -> {to} (forbidden: see docs/ARCHITECTURE.md)"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(edges: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
            g.entry((*b).to_owned()).or_default();
        }
        g
    }

    #[test]
    fn the_intended_graph_passes() {
        let g = graph(&[
            ("laige-sim", "laige-core"),
            ("laige-render", "laige-core"),
            ("laige-engine", "laige-sim"),
            ("laige-engine", "laige-render"),
        ]);
        assert!(violations(&g).is_empty());
    }

    #[test]
    fn a_transitive_render_to_sim_edge_is_caught() {
        let g = graph(&[
            ("laige-render", "helper"),
            ("helper", "laige-sim"),
            ("laige-sim", "laige-core"),
        ]);
        let v = violations(&g);
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("laige-render -> laige-sim"));
    }

    #[test]
    fn core_depending_on_a_laige_crate_is_caught() {
        let g = graph(&[("laige-core", "laige-sim")]);
        assert_eq!(violations(&g).len(), 1);
    }
}
