//! The rules, as a `syn` visitor.

use std::collections::BTreeSet;

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// Every rule name with its explanation.
pub const RULES: &[(&str, &str)] = &[
    (
        "float-type",
        "raw f32/f64 in sim code bypasses SimMath's pinned rounding; use a SimScalar (Fpx16_16/Fp32Pinned)",
    ),
    (
        "float-literal",
        "a float literal is a raw float value; build scalars with S::from_i32/S::from_ratio",
    ),
    (
        "float-cast",
        "`as` into f32/f64 produces a raw float; stay in SimScalar",
    ),
    (
        "mul-add",
        "mul_add fuses multiply and add into one rounding: different bits from the pinned a*b+c",
    ),
    (
        "arch",
        "core::arch/std::arch intrinsics differ per ISA and bypass SimMath",
    ),
    (
        "intrinsic",
        "compiler intrinsics bypass SimMath's pinned operations",
    ),
    (
        "wall-clock",
        "wall-clock reads differ per run; sim time is the tick counter",
    ),
    (
        "unseeded-random",
        "entropy differs per run; use a generator seeded from the replay identity",
    ),
    (
        "hash-iteration",
        "HashMap/HashSet iteration order is randomized per process; use BTreeMap/BTreeSet, a Vec, or sort first",
    ),
    (
        "bad-allow",
        "a det-allow comment must name known rules and give a reason",
    ),
];

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// 1-based line.
    pub line: usize,
    /// The rule name.
    pub rule: &'static str,
    /// The explanation.
    pub message: String,
}

fn explain(rule: &'static str) -> String {
    RULES
        .iter()
        .find(|(n, _)| *n == rule)
        .map_or_else(String::new, |(_, e)| (*e).to_owned())
}

const HASH_TYPES: &[&str] = &[
    "HashMap",
    "HashSet",
    "FxHashMap",
    "FxHashSet",
    "AHashMap",
    "AHashSet",
];
const HASH_ITER_METHODS: &[&str] = &[
    "iter",
    "iter_mut",
    "keys",
    "values",
    "values_mut",
    "into_iter",
    "into_keys",
    "into_values",
    "drain",
    "retain",
    "extract_if",
];
const RANDOM_IDENTS: &[&str] = &[
    "thread_rng",
    "OsRng",
    "ThreadRng",
    "RandomState",
    "from_entropy",
    "from_os_rng",
    "getrandom",
];

/// Scans a parsed file.
pub fn scan(file: &syn::File) -> Vec<Violation> {
    let mut hash_names = BTreeSet::new();
    let mut collector = HashNames {
        names: &mut hash_names,
    };
    collector.visit_file(file);
    let mut v = Scanner {
        found: Vec::new(),
        hash_names,
    };
    v.visit_file(file);
    v.found.sort_by_key(|f| (f.line, f.rule));
    v.found.dedup();
    v.found
}

fn is_float_ident(id: &syn::Ident) -> bool {
    id == "f32" || id == "f64"
}

fn is_float_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => {
            p.qself.is_none()
                && p.path.segments.len() == 1
                && is_float_ident(&p.path.segments[0].ident)
        }
        syn::Type::Paren(p) => is_float_type(&p.elem),
        syn::Type::Group(g) => is_float_type(&g.elem),
        _ => false,
    }
}

fn type_is_hash(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| HASH_TYPES.iter().any(|h| s.ident == h)),
        syn::Type::Reference(r) => type_is_hash(&r.elem),
        syn::Type::Paren(p) => type_is_hash(&p.elem),
        _ => false,
    }
}

fn expr_makes_hash(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => p
                .path
                .segments
                .iter()
                .any(|s| HASH_TYPES.iter().any(|h| s.ident == h)),
            _ => false,
        },
        syn::Expr::MethodCall(m) => {
            // `.collect::<HashMap<..>>()`
            m.turbofish.as_ref().is_some_and(|t| {
                t.args
                    .iter()
                    .any(|a| matches!(a, syn::GenericArgument::Type(ty) if type_is_hash(ty)))
            })
        }
        _ => false,
    }
}

/// The name an iterated expression refers to: `x`, `self.x`, `&x`, `&mut self.x`.
fn expr_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        syn::Expr::Reference(r) => expr_name(&r.expr),
        syn::Expr::Paren(p) => expr_name(&p.expr),
        _ => None,
    }
}

/// First pass: names bound to hash containers (lets, fields, parameters).
struct HashNames<'a> {
    names: &'a mut BTreeSet<String>,
}

impl<'ast> Visit<'ast> for HashNames<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let (pat, ty) = match &l.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let is_hash = ty.is_some_and(type_is_hash)
            || l.init.as_ref().is_some_and(|i| expr_makes_hash(&i.expr));
        if is_hash && let syn::Pat::Ident(id) = pat {
            self.names.insert(id.ident.to_string());
        }
        visit::visit_local(self, l);
    }

    fn visit_field(&mut self, f: &'ast syn::Field) {
        if type_is_hash(&f.ty)
            && let Some(id) = &f.ident
        {
            self.names.insert(id.to_string());
        }
        visit::visit_field(self, f);
    }

    fn visit_pat_type(&mut self, p: &'ast syn::PatType) {
        if type_is_hash(&p.ty)
            && let syn::Pat::Ident(id) = &*p.pat
        {
            self.names.insert(id.ident.to_string());
        }
        visit::visit_pat_type(self, p);
    }
}

struct Scanner {
    found: Vec<Violation>,
    hash_names: BTreeSet<String>,
}

impl Scanner {
    fn report(&mut self, span: proc_macro2::Span, rule: &'static str) {
        self.found.push(Violation {
            line: span.start().line,
            rule,
            message: explain(rule),
        });
    }

    fn check_path_segments(&mut self, span: proc_macro2::Span, segs: &[String]) {
        let first = segs.first().map(String::as_str);
        if segs.iter().any(|s| s == "mul_add") {
            self.report(span, "mul-add");
        }
        if matches!(first, Some("core" | "std")) && segs.get(1).is_some_and(|s| s == "arch") {
            self.report(span, "arch");
        }
        if matches!(first, Some("core" | "std")) && segs.get(1).is_some_and(|s| s == "intrinsics") {
            self.report(span, "intrinsic");
        }
        let std_time =
            matches!(first, Some("std" | "core")) && segs.get(1).is_some_and(|s| s == "time");
        if (std_time
            && segs
                .iter()
                .any(|s| s == "Instant" || s == "UNIX_EPOCH" || s == "*"))
            || segs.iter().any(|s| s == "SystemTime" || s == "SteadyClock")
            || segs.windows(2).any(|w| w[0] == "Instant" && w[1] == "now")
        {
            self.report(span, "wall-clock");
        }
        if segs.iter().any(|s| RANDOM_IDENTS.contains(&s.as_str()))
            || (first == Some("rand") && segs.iter().any(|s| s == "random" || s == "rng"))
        {
            self.report(span, "unseeded-random");
        }
    }
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut v = prefix.clone();
            v.push(n.ident.to_string());
            out.push(v);
        }
        syn::UseTree::Rename(r) => {
            let mut v = prefix.clone();
            v.push(r.ident.to_string());
            out.push(v);
        }
        syn::UseTree::Glob(_) => {
            let mut v = prefix.clone();
            v.push("*".to_owned());
            out.push(v);
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Scanner {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if let Some(first) = p.segments.first()
            && is_float_ident(&first.ident)
        {
            self.report(first.ident.span(), "float-type");
        }
        let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        self.check_path_segments(p.span(), &segs);
        visit::visit_path(self, p);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut out = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut out);
        for segs in out {
            self.check_path_segments(u.span(), &segs);
        }
    }

    fn visit_lit(&mut self, l: &'ast syn::Lit) {
        match l {
            syn::Lit::Float(_) => self.report(l.span(), "float-literal"),
            syn::Lit::Int(i) if i.suffix() == "f32" || i.suffix() == "f64" => {
                self.report(l.span(), "float-literal");
            }
            _ => {}
        }
        visit::visit_lit(self, l);
    }

    fn visit_expr_cast(&mut self, c: &'ast syn::ExprCast) {
        if is_float_type(&c.ty) {
            self.report(c.ty.span(), "float-cast");
            // The target type is the cast's finding, not also a float-type one.
            self.visit_expr(&c.expr);
            return;
        }
        visit::visit_expr_cast(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        if method == "mul_add" {
            self.report(m.method.span(), "mul-add");
        }
        if HASH_ITER_METHODS.contains(&method.as_str())
            && expr_name(&m.receiver).is_some_and(|n| self.hash_names.contains(&n))
        {
            self.report(m.method.span(), "hash-iteration");
        }
        if RANDOM_IDENTS.contains(&method.as_str()) {
            self.report(m.method.span(), "unseeded-random");
        }
        // `Instant::elapsed` / `SystemTime::elapsed` read the clock (the
        // receiver's type is unknown to a syntax lint: any `.elapsed()`).
        if method == "elapsed" && m.args.is_empty() {
            self.report(m.method.span(), "wall-clock");
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if expr_name(&f.expr).is_some_and(|n| self.hash_names.contains(&n)) {
            self.report(f.expr.span(), "hash-iteration");
        }
        visit::visit_expr_for_loop(self, f);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Macro bodies are token streams; lint the ones that parse as
        // expressions (format args, vec![..], assert!(..)).
        let parsed = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        );
        if let Ok(exprs) = parsed {
            for e in &exprs {
                self.visit_expr(e);
            }
        }
        visit::visit_macro(self, m);
    }
}
