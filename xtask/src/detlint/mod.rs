//! The determinism lint: parses sim code with `syn` and reports every
//! construct that can make two runs of the same inputs differ.
//!
//! Scope: the paths listed in the root `Cargo.toml` under
//! `[workspace.metadata.laige.determinism] paths = [...]` (the sim crates and
//! any code registered as a system), minus `exclude`.
//!
//! Rules (each reported as `file:line: rule: explanation`):
//!
//! | rule | what | why |
//! | --- | --- | --- |
//! | `float-type` | `f32`/`f64` in a type or path (`f32::sqrt`, `x: f64`) | raw floats bypass SimMath's pinned rounding |
//! | `float-literal` | `1.5`, `2f32` | a float literal is a raw float value |
//! | `float-cast` | `x as f32` | a cast into raw floats |
//! | `mul-add` | `mul_add` | a fused multiply-add rounds once: different bits |
//! | `arch` | `core::arch` / `std::arch` | platform intrinsics differ per ISA |
//! | `intrinsic` | `core::intrinsics` / `std::intrinsics` | compiler intrinsics bypass the pinned ops |
//! | `wall-clock` | `Instant::now`, `.elapsed()`, `SystemTime`, `std::time` reads | wall-clock time differs per run |
//! | `unseeded-random` | `thread_rng`, `rand::random`, `OsRng`, `RandomState`, `from_entropy` | entropy differs per run |
//! | `hash-iteration` | iterating a `HashMap`/`HashSet` | iteration order is randomized per process |
//!
//! The reviewed escape hatch is a comment with a reason, on the line or the
//! line before: `// det-allow(float-type): converts to render space only`.
//! A whole file: `//! det-allow-file(float-type): <reason>` in its header.
//! An allow without a reason, or naming an unknown rule, is itself reported.
//! `cargo xtask lint --list-allowed` prints every use of the escape hatch.

mod allow;
mod rules;

use std::path::{Path, PathBuf};

pub use allow::Allowed;
pub use rules::{RULES, Violation};

/// The result of linting one source text.
#[derive(Debug, Default)]
pub struct FileReport {
    /// Violations not covered by an allow.
    pub violations: Vec<Violation>,
    /// Allows that covered (or tried to cover) something.
    pub allowed: Vec<Allowed>,
}

/// Lints one file's text. `path` is used only for messages.
pub fn lint_source(source: &str) -> Result<FileReport, syn::Error> {
    let file = syn::parse_file(source)?;
    let found = rules::scan(&file);
    let allows = allow::parse(source);
    let mut report = FileReport::default();
    for a in &allows.problems {
        report.violations.push(a.clone());
    }
    for v in found {
        match allows.covering(&v) {
            Some(a) => report.allowed.push(Allowed {
                line: v.line,
                rule: v.rule,
                reason: a.to_owned(),
            }),
            None => report.violations.push(v),
        }
    }
    report.violations.sort_by_key(|v| (v.line, v.rule));
    Ok(report)
}

/// Every `.rs` file below `dir`, sorted.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Lints the scope; returns (violation lines, allowed lines, files read).
pub fn lint_paths(
    root: &Path,
    paths: &[String],
    exclude: &[String],
) -> anyhow::Result<(Vec<String>, Vec<String>, usize)> {
    let mut files = Vec::new();
    for p in paths {
        let full = root.join(p);
        if full.is_file() {
            files.push(full);
        } else {
            rust_files(&full, &mut files);
        }
    }
    files.retain(|f| {
        let rel = f
            .strip_prefix(root)
            .unwrap_or(f)
            .to_string_lossy()
            .into_owned();
        !exclude.iter().any(|e| rel.starts_with(e.as_str()))
    });
    let mut bad = Vec::new();
    let mut allowed = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root).unwrap_or(f).display().to_string();
        let text = std::fs::read_to_string(f)?;
        match lint_source(&text) {
            Ok(r) => {
                for v in r.violations {
                    bad.push(format!("{rel}:{}: {}: {}", v.line, v.rule, v.message));
                }
                for a in r.allowed {
                    allowed.push(format!(
                        "{rel}:{}: {}: allowed: {}",
                        a.line, a.rule, a.reason
                    ));
                }
            }
            Err(e) => bad.push(format!("{rel}:{}: parse-error: {e}", e.span().start().line)),
        }
    }
    Ok((bad, allowed, files.len()))
}

#[cfg(test)]
mod tests;
