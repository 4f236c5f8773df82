//! The architecture's claims as checks over the source tree, run by
//! `cargo test -p xtask` (the `tidy` test below) and by `cargo xtask lint`.
//!
//! Each rule is an ordinary function from the tree to a list of failures,
//! one line each, starting with the path (and the line, where there is
//! one), so a failing run reads like compiler output:
//!
//! - **crate edges** ([`edges`]): laige-core depends on no laige crate,
//!   render and sim never depend on each other, and sim and render meet
//!   only in the engine, the bench and the tools;
//! - **determinism** ([`detlint`]): the lint over the sim code named in
//!   `[workspace.metadata.laige.determinism]`;
//! - **render names no sim type**: no source file of laige-render (library,
//!   tests, benches, examples) names the `laige_sim` crate or a type
//!   laige-sim exports at its root, unless laige-render defines a type of
//!   that name itself;
//! - **code map**: every `.rs` file under a workspace crate's `src/` is
//!   named in the code map of `docs/ARCHITECTURE.md` (the `## Code map`
//!   section: a `###` heading per crate, naming the crate's directory in
//!   backticks; in its body a backticked `file.rs` or `dir/file.rs` path
//!   relative to `src/` names that file, and a backticked `dir/` names every
//!   file below it). A crate's `lib.rs` and `main.rs` are named by its
//!   heading.

use std::collections::BTreeSet;
use std::path::Path;
use std::str::FromStr;

use proc_macro2::{TokenStream, TokenTree};

use crate::{detlint, edges};

/// The page whose code map must name every source file.
pub const ARCHITECTURE: &str = "docs/ARCHITECTURE.md";

/// A rule: the tree (root and `cargo metadata`) to its failures.
pub type Rule = fn(&Path, &serde_json::Value) -> anyhow::Result<Vec<String>>;

/// Every rule, by name, in the order they are reported.
pub const RULES: &[(&str, Rule)] = &[
    ("crate edges", |_, meta| Ok(edges::all_violations(meta))),
    ("determinism lint", determinism),
    ("render names no sim type", |root, _| {
        render_names_no_sim_type(root)
    }),
    ("code map", code_map),
    ("platforms table", |root, _| crate::platforms::check(root)),
    ("file length", |root, _| file_length(root)),
];

/// The most lines of code a source file may have before its inline tests:
/// past it, a file holds more than one thing and is split by what it holds.
pub const MAX_CODE_LINES: usize = 800;

/// The source files (`crates/`, `xtask/`) with more than [`MAX_CODE_LINES`]
/// lines of code before their inline tests.
pub fn file_length(root: &Path) -> anyhow::Result<Vec<String>> {
    let mut bad = Vec::new();
    let mut stack = vec![root.join("crates"), root.join("xtask")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                if path
                    .file_name()
                    .is_some_and(|n| n != "target" && n != "node_modules")
                {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                // A module of tests (`mod tests;`) is all tests.
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                let n = code_lines_before_tests(&std::fs::read_to_string(&path)?);
                if n > MAX_CODE_LINES {
                    bad.push(format!(
                        "{}: {n} lines of code before its tests (at most {MAX_CODE_LINES}): split it by what it holds",
                        rel(root, &path)
                    ));
                }
            }
        }
    }
    bad.sort();
    Ok(bad)
}

/// Lines that are neither blank nor a `//` comment, up to the first
/// `#[cfg(test)]`.
fn code_lines_before_tests(text: &str) -> usize {
    text.lines()
        .map(str::trim)
        .take_while(|l| *l != "#[cfg(test)]")
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

/// The determinism lint's violations over its configured scope.
pub fn determinism(root: &Path, meta: &serde_json::Value) -> anyhow::Result<Vec<String>> {
    let scope = &meta["metadata"]["laige"]["determinism"];
    let paths = strings(&scope["paths"]);
    let exclude = strings(&scope["exclude"]);
    if paths.is_empty() {
        anyhow::bail!(
            "no determinism lint scope: set [workspace.metadata.laige.determinism] paths"
        );
    }
    let (bad, _allowed, _files) = detlint::lint_paths(root, &paths, &exclude)?;
    Ok(bad)
}

/// `path:line: render names laige-sim's ...` for every place laige-render
/// names the sim crate or one of its root types.
pub fn render_names_no_sim_type(root: &Path) -> anyhow::Result<Vec<String>> {
    let sim_lib = std::fs::read_to_string(root.join("crates/laige-sim/src/lib.rs"))?;
    let mut sim_types = root_type_names(&syn::parse_file(&sim_lib)?);
    // A laige-core type the sim re-exports (`Alpha`, `Vec2`, ...) is core's,
    // and render may name core.
    let core_lib = std::fs::read_to_string(root.join("crates/laige-core/src/lib.rs"))?;
    for name in root_type_names(&syn::parse_file(&core_lib)?) {
        sim_types.remove(&name);
    }
    let mut files = Vec::new();
    detlint::rust_files(&root.join("crates/laige-render"), &mut files);
    let mut texts = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f)?;
        texts.push((rel(root, &f), text));
    }
    Ok(sim_names_in(&texts, &sim_types))
}

/// The check behind [`render_names_no_sim_type`], on file texts.
fn sim_names_in(files: &[(String, String)], sim_types: &BTreeSet<String>) -> Vec<String> {
    let mut streams = Vec::new();
    let mut out = Vec::new();
    for (path, text) in files {
        match TokenStream::from_str(text) {
            Ok(tokens) => streams.push((path, tokens)),
            Err(e) => out.push(format!("{path}: does not tokenize: {e}")),
        }
    }
    let mut defined = BTreeSet::new();
    for (_, tokens) in &streams {
        defined_type_names(tokens.clone(), &mut defined);
    }
    for (path, tokens) in streams {
        let mut hits = Vec::new();
        idents(tokens, &mut hits);
        for (name, line) in hits {
            if name == "laige_sim" {
                out.push(format!(
                    "{path}:{line}: laige-render names the laige_sim crate"
                ));
            } else if sim_types.contains(&name) && !defined.contains(&name) {
                out.push(format!(
                    "{path}:{line}: laige-render names the laige-sim type `{name}`"
                ));
            }
        }
    }
    out
}

/// The capitalized names a crate root re-exports (`pub use a::{B, C}`) or
/// defines publicly: the types a user of the crate names.
fn root_type_names(file: &syn::File) -> BTreeSet<String> {
    fn leaves(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
        match tree {
            syn::UseTree::Path(p) => leaves(&p.tree, out),
            syn::UseTree::Name(n) => {
                out.insert(n.ident.to_string());
            }
            syn::UseTree::Rename(r) => {
                out.insert(r.rename.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut names = BTreeSet::new();
    for item in &file.items {
        match item {
            syn::Item::Use(u) if matches!(u.vis, syn::Visibility::Public(_)) => {
                leaves(&u.tree, &mut names);
            }
            syn::Item::Struct(s) if matches!(s.vis, syn::Visibility::Public(_)) => {
                names.insert(s.ident.to_string());
            }
            syn::Item::Enum(e) if matches!(e.vis, syn::Visibility::Public(_)) => {
                names.insert(e.ident.to_string());
            }
            syn::Item::Trait(t) if matches!(t.vis, syn::Visibility::Public(_)) => {
                names.insert(t.ident.to_string());
            }
            _ => {}
        }
    }
    names.retain(|n| {
        n.chars().next().is_some_and(char::is_uppercase) && n.chars().any(char::is_lowercase)
    });
    names
}

/// Every identifier in `tokens` with its line (comments are not tokens;
/// doc comments are string literals, so prose never counts).
fn idents(tokens: TokenStream, out: &mut Vec<(String, usize)>) {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => out.push((i.to_string(), i.span().start().line)),
            TokenTree::Group(g) => idents(g.stream(), out),
            TokenTree::Punct(_) | TokenTree::Literal(_) => {}
        }
    }
}

/// The names after `struct`, `enum`, `trait`, `type` and `union`.
fn defined_type_names(tokens: TokenStream, out: &mut BTreeSet<String>) {
    let mut after_keyword = false;
    // After `enum Name`: the next brace group's top-level idents are the
    // variants (`Space::World` is render's own name, not the sim's type).
    let mut enum_body_next = false;
    let mut last_keyword = String::new();
    for t in tokens {
        match t {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                if after_keyword {
                    out.insert(name.clone());
                    enum_body_next = last_keyword == "enum";
                }
                after_keyword = matches!(
                    name.as_str(),
                    "struct" | "enum" | "trait" | "type" | "union"
                );
                if after_keyword {
                    last_keyword = name;
                }
            }
            TokenTree::Group(g) => {
                after_keyword = false;
                if enum_body_next && g.delimiter() == proc_macro2::Delimiter::Brace {
                    enum_body_next = false;
                    for v in g.stream() {
                        if let TokenTree::Ident(i) = v {
                            out.insert(i.to_string());
                        }
                    }
                }
                defined_type_names(g.stream(), out);
            }
            TokenTree::Punct(_) | TokenTree::Literal(_) => after_keyword = false,
        }
    }
}

/// `path: not named in the code map ...` for every workspace source file
/// the code map of [`ARCHITECTURE`] does not name, and one line for every
/// crate it has no section for.
pub fn code_map(root: &Path, meta: &serde_json::Value) -> anyhow::Result<Vec<String>> {
    let doc = std::fs::read_to_string(root.join(ARCHITECTURE))?;
    let sections = code_map_sections(&doc);
    let mut crates = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let Some(manifest) = p["manifest_path"].as_str() else {
            continue;
        };
        let dir = Path::new(manifest).parent().unwrap_or(Path::new(""));
        let mut files = Vec::new();
        detlint::rust_files(&dir.join("src"), &mut files);
        let src = dir.join("src");
        let files = files.iter().map(|f| rel(&src, f)).collect::<Vec<_>>();
        crates.push((rel(root, dir), files));
    }
    crates.sort();
    Ok(unmapped(&sections, &crates))
}

/// One `###` section of the code map: the crate directories its heading
/// names, and the paths its body names.
#[derive(Debug, Default)]
struct Section {
    crates: Vec<String>,
    paths: Vec<String>,
}

/// The `###` sections of the `## Code map` section of `doc`.
fn code_map_sections(doc: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut in_map = false;
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            in_map = h.trim().eq_ignore_ascii_case("code map");
            continue;
        }
        if !in_map {
            continue;
        }
        if let Some(h) = line.strip_prefix("### ") {
            sections.push(Section {
                crates: backticked(h)
                    .map(|c| c.trim_end_matches('/').to_owned())
                    .collect(),
                paths: Vec::new(),
            });
        } else if let Some(s) = sections.last_mut() {
            s.paths.extend(
                backticked(line)
                    .filter(|t| t.ends_with(".rs") || t.ends_with('/'))
                    .map(str::to_owned),
            );
        }
    }
    sections
}

/// The backticked spans of a line.
fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// The check behind [`code_map`]: `crates` is (crate dir, its files relative
/// to `src/`).
fn unmapped(sections: &[Section], crates: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (dir, files) in crates {
        let named: Vec<&str> = sections
            .iter()
            .filter(|s| s.crates.iter().any(|c| c == dir))
            .flat_map(|s| s.paths.iter().map(String::as_str))
            .map(|p| p.strip_prefix(&format!("{dir}/")).unwrap_or(p))
            .map(|p| p.strip_prefix("src/").unwrap_or(p))
            .collect();
        if !sections.iter().any(|s| s.crates.iter().any(|c| c == dir)) {
            out.push(format!(
                "{dir}: no `### `{dir}`` section in the code map of {ARCHITECTURE}"
            ));
            continue;
        }
        for f in files {
            let covered = matches!(f.as_str(), "lib.rs" | "main.rs")
                || named
                    .iter()
                    .any(|n| *n == f || (n.ends_with('/') && f.starts_with(n)));
            if !covered {
                out.push(format!(
                    "{dir}/src/{f}: not named in the code map of {ARCHITECTURE}"
                ));
            }
        }
    }
    out
}

/// A JSON array of strings (missing or mistyped entries skipped).
pub fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// `path` relative to `base`, with `/` separators.
fn rel(base: &Path, path: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's rules, over the repository as it is.
    #[test]
    fn tidy() {
        let meta = edges::metadata().expect("cargo metadata");
        let root = crate::run::root();
        let mut failures = Vec::new();
        for (name, rule) in RULES {
            let bad = rule(&root, &meta).unwrap_or_else(|e| panic!("{name}: {e:#}"));
            failures.extend(bad.into_iter().map(|b| format!("{b}  [{name}]")));
        }
        assert!(
            failures.is_empty(),
            "{} tidy failure(s):\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn code_lines_stop_at_the_tests_and_skip_comments_and_blanks() {
        let text =
            "//! doc\n\nfn a() {}\n    // note\n/// doc\nfn b() {}\n#[cfg(test)]\nmod tests {}\n";
        assert_eq!(code_lines_before_tests(text), 2);
        assert_eq!(code_lines_before_tests("fn a() {}\nfn b() {}\n"), 2);
    }

    fn types(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    fn file(path: &str, text: &str) -> (String, String) {
        (path.to_owned(), text.to_owned())
    }

    #[test]
    fn render_naming_the_sim_crate_or_its_types_is_caught_with_its_line() {
        let files = [
            file(
                "r/a.rs",
                "// World in a comment is prose\nfn f() {}\nuse laige_sim::World;\n",
            ),
            file("r/b.rs", "/// a World doc line\nfn g(_: &GameLoop) {}\n"),
        ];
        let v = sim_names_in(&files, &types(&["World", "GameLoop"]));
        assert_eq!(
            v,
            [
                "r/a.rs:3: laige-render names the laige_sim crate",
                "r/a.rs:3: laige-render names the laige-sim type `World`",
                "r/b.rs:2: laige-render names the laige-sim type `GameLoop`",
            ]
        );
    }

    #[test]
    fn a_type_render_defines_itself_is_its_own() {
        let files = [file(
            "r/a.rs",
            "pub struct Profiler;\nfn f(_: Profiler) {}\n",
        )];
        assert!(sim_names_in(&files, &types(&["Profiler"])).is_empty());
    }

    #[test]
    fn root_type_names_are_the_public_capitalized_exports() {
        let file = syn::parse_file(
            "mod world; pub mod input; pub use world::{World, WorldConfig as Config, hash_of};\n\
             pub use laige_macros::StateHash; use private::Hidden; pub struct Own; pub const MAX: u32 = 1;",
        )
        .unwrap();
        assert_eq!(
            root_type_names(&file),
            types(&["Config", "Own", "StateHash", "World"])
        );
    }

    const MAP: &str = "\
# Architecture
## Bird's-eye view
`crates/laige-sim` `stray.rs`
## Code map
### `crates/laige-sim`
- `world.rs` (hecs), `input/` (queue, script),
  `replay/format.rs`.
### `crates/laige-bench`, `xtask`
`harness.rs`, `detlint/`
## Cross-cutting concerns
`crates/laige-sim/src/late.rs`
";

    fn krate(dir: &str, files: &[&str]) -> (String, Vec<String>) {
        (
            dir.to_owned(),
            files.iter().map(|f| (*f).to_owned()).collect(),
        )
    }

    #[test]
    fn the_code_map_failure_list_is_exactly_the_missing_files() {
        let sections = code_map_sections(MAP);
        let crates = [
            krate(
                "crates/laige-sim",
                &[
                    "lib.rs",
                    "world.rs",
                    "input/mod.rs",
                    "input/queue.rs",
                    "replay/format.rs",
                    "replay/reader.rs",
                    "stray.rs",
                    "late.rs",
                ],
            ),
            krate("xtask", &["main.rs", "detlint/rules.rs", "tidy.rs"]),
            krate("crates/laige-new", &["lib.rs"]),
        ];
        assert_eq!(
            unmapped(&sections, &crates),
            [
                "crates/laige-sim/src/replay/reader.rs: not named in the code map of docs/ARCHITECTURE.md",
                "crates/laige-sim/src/stray.rs: not named in the code map of docs/ARCHITECTURE.md",
                "crates/laige-sim/src/late.rs: not named in the code map of docs/ARCHITECTURE.md",
                "xtask/src/tidy.rs: not named in the code map of docs/ARCHITECTURE.md",
                "crates/laige-new: no `### `crates/laige-new`` section in the code map of docs/ARCHITECTURE.md",
            ]
        );
    }
}
