//! The crate-edge check: the architecture's dependency rules, read from
//! `cargo metadata`.
//!
//! - laige-core depends on no other laige crate;
//! - laige-render never depends on laige-sim (directly or transitively);
//! - laige-sim never depends on laige-render;
//! - laige-net (sessions) never depends on laige-render or laige-engine,
//!   and neither laige-sim nor laige-core depends on it;
//! - laige-physics depends on laige-core and laige-sim only (never on
//!   laige-render, laige-engine or laige-net), and neither laige-sim nor
//!   laige-core depends on it;
//! - sim and render meet only in the engine, the bench and the tools: no
//!   other crate depends directly on both (dev-dependencies included, so a
//!   test cannot join them either).

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
    ("laige-net", "laige-render"),
    ("laige-net", "laige-engine"),
    ("laige-sim", "laige-net"),
    ("laige-core", "laige-net"),
    ("laige-physics", "laige-render"),
    ("laige-physics", "laige-engine"),
    ("laige-physics", "laige-net"),
    ("laige-sim", "laige-physics"),
    ("laige-core", "laige-physics"),
];

/// The crates that may depend directly on both laige-sim and laige-render:
/// the engine joins them for games, the bench measures them together, and
/// the tools (detcheck, xtask) drive whole runs.
const MEET_ALLOWED: &[&str] = &["laige-engine", "laige-bench", "laige-detcheck", "xtask"];

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

/// Every violated edge rule, one line each.
pub fn all_violations(meta: &serde_json::Value) -> Vec<String> {
    let mut out = violations(&workspace_graph(meta, false));
    out.extend(meet_violations(&workspace_graph(meta, true)));
    out
}

/// Workspace crate → its (normal and build, plus dev with `include_dev`)
/// dependencies on workspace crates.
fn workspace_graph(
    meta: &serde_json::Value,
    include_dev: bool,
) -> BTreeMap<String, BTreeSet<String>> {
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
            .filter(|d| include_dev || d["kind"].as_str() != Some("dev"))
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

/// Crates outside [`MEET_ALLOWED`] that depend directly on both laige-sim
/// and laige-render.
fn meet_violations(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    graph
        .iter()
        .filter(|(name, deps)| {
            !MEET_ALLOWED.contains(&name.as_str())
                && deps.contains("laige-sim")
                && deps.contains("laige-render")
        })
        .map(|(name, _)| {
            format!(
                "{name} -> laige-sim + laige-render (sim and render meet only in {})",
                MEET_ALLOWED.join(", ")
            )
        })
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

    #[test]
    fn sim_and_render_meet_only_in_the_allowed_crates() {
        let g = graph(&[
            ("laige-engine", "laige-sim"),
            ("laige-engine", "laige-render"),
            ("laige-demo", "laige-engine"),
            ("laige-demo", "laige-render"),
        ]);
        assert!(meet_violations(&g).is_empty(), "through the engine is fine");
        let g = graph(&[("laige-demo", "laige-sim"), ("laige-demo", "laige-render")]);
        let v = meet_violations(&g);
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("laige-demo -> laige-sim + laige-render"));
    }
}
