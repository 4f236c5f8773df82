//! The escape hatch: `// det-allow(rule[, rule]): reason` comments.

use super::rules::{RULES, Violation};

/// One use of the escape hatch that covered a finding.
#[derive(Clone, Debug)]
pub struct Allowed {
    /// The line of the covered finding.
    pub line: usize,
    /// The covered rule.
    pub rule: &'static str,
    /// The reviewed reason.
    pub reason: String,
}

struct Entry {
    line: usize,
    rules: Vec<String>,
    reason: String,
    whole_file: bool,
}

/// The allows of one file, plus malformed ones (reported as violations).
pub struct Allows {
    entries: Vec<Entry>,
    pub problems: Vec<Violation>,
}

impl Allows {
    /// The reason of the allow that covers `v`, if any. A line allow covers
    /// its own line and the next one; a file allow covers the whole file.
    pub fn covering(&self, v: &Violation) -> Option<&str> {
        self.entries
            .iter()
            .find(|e| {
                e.rules.iter().any(|r| r == v.rule)
                    && (e.whole_file || v.line == e.line || v.line == e.line + 1)
            })
            .map(|e| e.reason.as_str())
    }
}

/// Finds every allow comment in `source`.
pub fn parse(source: &str) -> Allows {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    for (idx, text) in source.lines().enumerate() {
        let line = idx + 1;
        for (marker, whole_file) in [("det-allow-file(", true), ("det-allow(", false)] {
            let Some(pos) = text.find(marker) else {
                continue;
            };
            // Only in comments: the marker must follow `//`.
            let Some(comment) = text.find("//") else {
                continue;
            };
            if comment > pos {
                continue;
            }
            let rest = &text[pos + marker.len()..];
            let Some(close) = rest.find(')') else {
                problems.push(problem(line, "the allow has no closing `)`"));
                break;
            };
            let rules: Vec<String> = rest[..close]
                .split(',')
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty())
                .collect();
            let reason = rest[close + 1..]
                .trim_start()
                .strip_prefix(':')
                .map(|r| r.trim().to_owned())
                .unwrap_or_default();
            if reason.is_empty() {
                problems.push(problem(
                    line,
                    "an allow needs a reason: `// det-allow(rule): why this is deterministic`",
                ));
            }
            for r in &rules {
                if !RULES.iter().any(|(name, _)| name == r) {
                    problems.push(problem(
                        line,
                        "the allow names an unknown rule (see `cargo xtask lint --rules`)",
                    ));
                }
            }
            if rules.is_empty() {
                problems.push(problem(line, "the allow names no rule"));
            }
            if !reason.is_empty() {
                entries.push(Entry {
                    line,
                    rules,
                    reason,
                    whole_file,
                });
            }
            break;
        }
    }
    Allows { entries, problems }
}

fn problem(line: usize, message: &str) -> Violation {
    Violation {
        line,
        rule: "bad-allow",
        message: message.to_owned(),
    }
}
