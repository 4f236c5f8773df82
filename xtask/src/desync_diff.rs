//! `cargo xtask desync-diff A B`: compares two snapshot dumps
//! (`laige_sim::snapshot::WorldSnapshot::dump`, written by each peer of a
//! desynced session) down to the component, the entity and the field.
//!
//! The dump is text: `laige-snapshot 1`, `tick N`, `state_hash H`, one
//! `type NAME H` line per per-type hash, then one `value NAME ENTITY H`
//! line per component value, sorted, each optionally followed by its
//! `field NAME ENTITY PATH H [VALUE]` lines (`WorldSnapshot::dump_fields`:
//! a desynced session writes them for the component types whose hashes
//! differ; the value where the field's type gives its text). A differing
//! value is named down to its differing fields, with both values when the
//! lines carry them, when both dumps hold its field lines, else down to
//! the entity. `cargo xtask replay-diff` compares its two sides' dumps
//! with the same [`compare`].

use std::collections::BTreeMap;

use anyhow::{Context, bail};

/// One field line: path, hash, value text (when the dump has it).
type Field = (String, String, Option<String>);

/// One parsed dump.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Dump {
    pub(crate) tick: u64,
    state_hash: String,
    types: Vec<(String, String)>,
    values: BTreeMap<(String, String), String>,
    /// `(component, entity) -> [(path, hash, value)]`, in dump order.
    fields: BTreeMap<(String, String), Vec<Field>>,
}

pub(crate) fn parse(text: &str) -> anyhow::Result<Dump> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, "laige-snapshot 1")) => {}
        other => bail!(
            "line 1: expected `laige-snapshot 1`, found {:?}",
            other.map(|(_, l)| l)
        ),
    }
    let mut dump = Dump::default();
    for (i, line) in lines {
        let words: Vec<&str> = line.split(' ').collect();
        let n = i + 1;
        match words.as_slice() {
            ["tick", t] => dump.tick = t.parse().with_context(|| format!("line {n}: tick"))?,
            ["state_hash", h] => dump.state_hash = (*h).to_owned(),
            ["type", name, h] => dump.types.push(((*name).to_owned(), (*h).to_owned())),
            ["value", name, entity, h] => {
                dump.values
                    .insert(((*name).to_owned(), (*entity).to_owned()), (*h).to_owned());
            }
            ["field", name, entity, path, h, value @ ..] if value.len() <= 1 => dump
                .fields
                .entry(((*name).to_owned(), (*entity).to_owned()))
                .or_default()
                .push((
                    (*path).to_owned(),
                    (*h).to_owned(),
                    value.first().map(|v| (*v).to_owned()),
                )),
            _ => bail!("line {n}: not a dump line: {line:?}"),
        }
    }
    Ok(dump)
}

/// The differences between two dumps, most specific first; empty when they
/// agree.
pub(crate) fn compare(a: &Dump, b: &Dump) -> Vec<String> {
    let mut out = Vec::new();
    if a.tick != b.tick {
        out.push(format!(
            "the dumps hold different ticks ({} and {}): compare the same tick",
            a.tick, b.tick
        ));
        return out;
    }
    if a.state_hash != b.state_hash {
        out.push(format!(
            "tick {}: state hash {} vs {}",
            a.tick, a.state_hash, b.state_hash
        ));
    }
    for ((name, ha), (_, hb)) in a.types.iter().zip(&b.types) {
        if ha != hb {
            out.push(format!("component {name}: per-type hash {ha} vs {hb}"));
        }
    }
    for (key, ha) in &a.values {
        match b.values.get(key) {
            Some(hb) if hb == ha => {}
            Some(hb) => {
                let fields = match (a.fields.get(key), b.fields.get(key)) {
                    (Some(fa), Some(fb)) => differing_fields(fa, fb),
                    _ => Vec::new(),
                };
                if fields.is_empty() {
                    out.push(format!(
                        "component {}, entity {}: value hash {ha} vs {hb}",
                        key.0, key.1
                    ));
                }
                for f in fields {
                    out.push(format!("component {}, entity {}, {f}", key.0, key.1));
                }
            }
            None => out.push(format!(
                "component {}, entity {}: only in the first dump",
                key.0, key.1
            )),
        }
    }
    for key in b.values.keys().filter(|k| !a.values.contains_key(*k)) {
        out.push(format!(
            "component {}, entity {}: only in the second dump",
            key.0, key.1
        ));
    }
    out
}

/// The differing fields of one value: `field PATH: hash A vs B` (with
/// both values after when both lines carry them: `field PATH: hash A vs B
/// (values 1.5 vs 1.25)`), or a field only one side has (an enum in
/// another variant).
fn differing_fields(a: &[Field], b: &[Field]) -> Vec<String> {
    let find = |side: &[Field], path: &str| side.iter().find(|(p, _, _)| p == path).cloned();
    let mut out = Vec::new();
    for (path, ha, va) in a {
        match find(b, path) {
            Some((_, hb, _)) if hb == *ha => {}
            Some((_, hb, vb)) => match (va, vb) {
                (Some(va), Some(vb)) => {
                    out.push(format!(
                        "field {path}: hash {ha} vs {hb} (values {va} vs {vb})"
                    ));
                }
                _ => out.push(format!("field {path}: hash {ha} vs {hb}")),
            },
            None => out.push(format!("field {path}: only in the first dump")),
        }
    }
    for (path, _, _) in b.iter().filter(|(p, _, _)| find(a, p).is_none()) {
        out.push(format!("field {path}: only in the second dump"));
    }
    out
}

/// The command: prints every difference; fails when there is one.
pub fn run(a: &str, b: &str) -> anyhow::Result<()> {
    let read = |p: &str| -> anyhow::Result<Dump> {
        let text = std::fs::read_to_string(p).with_context(|| format!("reading {p}"))?;
        parse(&text).with_context(|| format!("parsing {p}"))
    };
    let differences = compare(&read(a)?, &read(b)?);
    if differences.is_empty() {
        println!("desync-diff: the dumps agree");
        return Ok(());
    }
    for d in &differences {
        println!("{d}");
    }
    bail!("{} difference(s)", differences.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "laige-snapshot 1\ntick 61\nstate_hash 0x1\ntype test.avatar 0xa\ntype workload.position 0xb\nvalue test.avatar 64v1 0x10\nvalue test.avatar 65v1 0x11\nvalue workload.position 0v1 0x12\n";

    #[test]
    fn equal_dumps_agree() {
        let a = parse(A).unwrap();
        assert!(compare(&a, &a).is_empty());
    }

    #[test]
    fn a_differing_value_is_named_down_to_the_entity() {
        let b = A
            .replace("state_hash 0x1", "state_hash 0x2")
            .replace("type test.avatar 0xa", "type test.avatar 0xc")
            .replace("65v1 0x11", "65v1 0x99");
        let d = compare(&parse(A).unwrap(), &parse(&b).unwrap());
        assert_eq!(
            d,
            [
                "tick 61: state hash 0x1 vs 0x2",
                "component test.avatar: per-type hash 0xa vs 0xc",
                "component test.avatar, entity 65v1: value hash 0x11 vs 0x99",
            ]
        );
    }

    const FIELDS: &str = "value test.avatar 65v1 0x11\nfield test.avatar 65v1 player 0x20\nfield test.avatar 65v1 x 0x21\nfield test.avatar 65v1 pos.y 0x22\n";

    #[test]
    fn a_differing_value_with_field_lines_is_named_down_to_the_field() {
        let a = A.replace("value test.avatar 65v1 0x11\n", FIELDS);
        let b = a
            .replace("65v1 0x11", "65v1 0x99")
            .replace("65v1 pos.y 0x22", "65v1 pos.y 0x98");
        let d = compare(&parse(&a).unwrap(), &parse(&b).unwrap());
        assert_eq!(
            d,
            ["component test.avatar, entity 65v1, field pos.y: hash 0x22 vs 0x98"]
        );
        // Field lines on one side only: named down to the entity.
        let c = A.replace("65v1 0x11", "65v1 0x99");
        let d = compare(&parse(&a).unwrap(), &parse(&c).unwrap());
        assert_eq!(
            d,
            ["component test.avatar, entity 65v1: value hash 0x11 vs 0x99"]
        );
        // Another enum variant: paths on one side only.
        let e = a
            .replace("65v1 0x11", "65v1 0x99")
            .replace("65v1 pos.y 0x22", "65v1 other 0x22");
        let d = compare(&parse(&a).unwrap(), &parse(&e).unwrap());
        assert_eq!(
            d,
            [
                "component test.avatar, entity 65v1, field pos.y: only in the first dump",
                "component test.avatar, entity 65v1, field other: only in the second dump",
            ]
        );
    }

    #[test]
    fn field_lines_with_values_name_both_values() {
        let with_values = FIELDS
            .replace("pos.y 0x22", "pos.y 0x22 1.5")
            .replace("x 0x21", "x 0x21 -3");
        let a = A.replace("value test.avatar 65v1 0x11\n", &with_values);
        let b = a
            .replace("65v1 0x11", "65v1 0x99")
            .replace("pos.y 0x22 1.5", "pos.y 0x98 1.25");
        let d = compare(&parse(&a).unwrap(), &parse(&b).unwrap());
        assert_eq!(
            d,
            [
                "component test.avatar, entity 65v1, field pos.y: hash 0x22 vs 0x98 (values 1.5 vs 1.25)"
            ]
        );
        assert!(parse(&a.replace("1.5", "1.5 extra")).is_err());
    }

    #[test]
    fn missing_entities_and_other_ticks_are_named() {
        let b = A.replace("value workload.position 0v1 0x12\n", "");
        let d = compare(&parse(A).unwrap(), &parse(&b).unwrap());
        assert_eq!(
            d,
            ["component workload.position, entity 0v1: only in the first dump"]
        );
        let c = A.replace("tick 61", "tick 62");
        assert!(compare(&parse(A).unwrap(), &parse(&c).unwrap())[0].contains("different ticks"));
    }

    #[test]
    fn a_file_that_is_not_a_dump_is_refused_with_its_line() {
        assert!(parse("hello").is_err());
        let err = parse("laige-snapshot 1\ntick x\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
        let err = parse("laige-snapshot 1\nbogus line\n").unwrap_err();
        assert!(format!("{err:#}").contains("line 2"), "{err:#}");
    }
}
