//! The known-answer file: `crates/laige-detcheck/known_answers.toml`.
//!
//! ```toml
//! [full.fixed_point_16_16.any]        # fixed point: every platform
//! ticks = 100000
//! final = "0x..."
//! checkpoints = ["0 0x...", "5000 0x...", ...]
//!
//! [full.float_pinned_32.x86_64-linux] # pinned float: per platform
//! ...
//! [short.float_pinned_32.aarch64-linux] # the first 20 000 ticks
//! ...
//! ```
//!
//! A `short` answer (emulated targets) that is a prefix of the `full`
//! answer for the same key is derived from it, not stored.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, bail};

use super::output::parse_hex;

/// The platform key for a backend: fixed point is promised everywhere
/// (`any`); pinned float per platform.
pub fn platform_key(backend: &str, platform: &str) -> String {
    if backend == "fixed_point_16_16" {
        "any".to_owned()
    } else {
        platform.to_owned()
    }
}

/// One known answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub ticks: u64,
    pub checkpoints: Vec<(u64, u64)>,
}

impl Answer {
    pub fn final_hash(&self) -> u64 {
        self.checkpoints.last().map_or(0, |c| c.1)
    }
}

/// mode → backend → platform → answer.
pub type Known = BTreeMap<String, BTreeMap<String, BTreeMap<String, Answer>>>;

/// The checkpoints of `a` up to `ticks`, as an answer of that length.
pub fn prefix(a: &Answer, ticks: u64) -> Answer {
    Answer {
        ticks: ticks.min(a.ticks),
        checkpoints: a
            .checkpoints
            .iter()
            .copied()
            .filter(|c| c.0 <= ticks)
            .collect(),
    }
}

/// `known` with the `short` answers derived from the `full` ones where the
/// file stores none, and the `physics-short` ones from the `physics` ones
/// (cut at [`PHYSICS_SHORT_TICKS`](super::matrix::PHYSICS_SHORT_TICKS)).
pub fn with_short(known: &Known, ticks: u64) -> Known {
    let out = with_prefix(known, "full", "short", ticks);
    with_prefix(
        &out,
        "physics",
        "physics-short",
        super::matrix::PHYSICS_SHORT_TICKS,
    )
}

/// `known` with the answers of mode `to` derived from those of `from`, cut
/// at `ticks`, where the file stores none.
fn with_prefix(known: &Known, from: &str, to: &str, ticks: u64) -> Known {
    let mut out = known.clone();
    if let Some(full) = known.get(from) {
        let short = out.entry(to.to_owned()).or_default();
        for (backend, platforms) in full {
            for (platform, a) in platforms {
                short
                    .entry(backend.clone())
                    .or_default()
                    .entry(platform.clone())
                    .or_insert_with(|| prefix(a, ticks));
            }
        }
    }
    out
}

/// Parses the file's text.
pub fn parse(text: &str) -> anyhow::Result<Known> {
    let doc: toml::Table = toml::from_str(text).context("known_answers.toml is not TOML")?;
    let mut known = Known::new();
    for (mode, v) in &doc {
        let Some(backends) = v.as_table() else {
            continue; // top-level scalars (scenario_version)
        };
        for (backend, v) in backends {
            let platforms = v
                .as_table()
                .with_context(|| format!("[{mode}.{backend}] is not a table"))?;
            for (platform, v) in platforms {
                let t = v
                    .as_table()
                    .with_context(|| format!("[{mode}.{backend}.{platform}] is not a table"))?;
                let ticks = t
                    .get("ticks")
                    .and_then(toml::Value::as_integer)
                    .and_then(|i| u64::try_from(i).ok())
                    .with_context(|| format!("[{mode}.{backend}.{platform}] has no ticks"))?;
                let mut checkpoints = Vec::new();
                for c in t
                    .get("checkpoints")
                    .and_then(toml::Value::as_array)
                    .with_context(|| format!("[{mode}.{backend}.{platform}] has no checkpoints"))?
                {
                    let s = c.as_str().context("a checkpoint is not a string")?;
                    let (tick, hash) = s
                        .split_once(' ')
                        .with_context(|| format!("checkpoint `{s}` is not `TICK 0xHASH`"))?;
                    checkpoints.push((tick.parse()?, parse_hex(hash)?));
                }
                if let Some(f) = t.get("final").and_then(toml::Value::as_str)
                    && checkpoints.last().map(|c| c.1) != Some(parse_hex(f)?)
                {
                    bail!("[{mode}.{backend}.{platform}] final does not match its last checkpoint");
                }
                known
                    .entry(mode.clone())
                    .or_default()
                    .entry(backend.clone())
                    .or_default()
                    .insert(platform.clone(), Answer { ticks, checkpoints });
            }
        }
    }
    Ok(known)
}

/// Renders the file (deterministic order: BTreeMaps).
pub fn render(known: &Known, scenario_version: u32) -> String {
    let mut out = String::from(
        "# Known-answer state hashes of the detcheck scenario (crates/laige-detcheck),\n\
         # checked by `cargo xtask detcheck` on every build of its matrix.\n\
         # Regenerate with `cargo xtask detcheck --bless` (it prints the diff): a change\n\
         # that alters simulation results must update this file in the same commit.\n\
         # fixed_point_16_16 is promised on every platform (`any`); float_pinned_32 per\n\
         # platform (`<arch>-<os>`), see `laige_sim::determinism`. `short` answers are\n\
         # the first 20000 ticks (emulated targets); where the file has none, the full\n\
         # answer's prefix is the short answer.\n",
    );
    let _ = writeln!(out, "scenario_version = {scenario_version}");
    for (mode, backends) in known {
        for (backend, platforms) in backends {
            for (platform, a) in platforms {
                let _ = writeln!(out, "\n[{mode}.{backend}.{platform}]");
                let _ = writeln!(out, "ticks = {}", a.ticks);
                let _ = writeln!(out, "final = \"{:#018x}\"", a.final_hash());
                out.push_str("checkpoints = [\n");
                for (t, h) in &a.checkpoints {
                    let _ = writeln!(out, "    \"{t} {h:#018x}\",");
                }
                out.push_str("]\n");
            }
        }
    }
    out
}

/// A line diff (old → new): `-` removed, `+` added, in file order. Enough
/// for a file whose lines are unique keys and hashes.
pub fn diff(old: &str, new: &str) -> Vec<String> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    // Longest common subsequence, O(n·m) on a ~100-line file.
    let (n, m) = (old_lines.len(), new_lines.len());
    let mut lcs = vec![vec![0_u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old_lines[i] == new_lines[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < n || j < m {
        if i < n && j < m && old_lines[i] == new_lines[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(format!("+{}", new_lines[j]));
            j += 1;
        } else {
            out.push(format!("-{}", old_lines[i]));
            i += 1;
        }
    }
    out
}
