//! What a desync report reads from snapshots: the per-type hashes, the
//! first difference between two snapshots (down to the field) and the
//! text dump that `cargo xtask desync-diff` compares.

use std::fmt::{self, Write as _};

use hecs::Entity;

use super::WorldSnapshot;
use crate::state_hash::FieldHashes;

impl WorldSnapshot {
    /// Number of lines of [`type_hash`](Self::type_hash): one per
    /// registered component type (name order), then one per part.
    #[must_use]
    pub fn type_count(&self) -> usize {
        self.layout.components.len() + self.layout.parts.len()
    }

    /// The `line`-th per-type hash as `(name, hash)`: components first (in
    /// name order), then parts. A component's hash covers the multiset of
    /// its values (independent of entity ids and row order, like the state
    /// hash), each value hashed a word at a time
    /// ([`StateHash::hash_words`](crate::StateHash::hash_words): the
    /// canonical little-endian encoding's integers, so the line is the same
    /// on every platform); two peers on the same confirmed tick agree on
    /// every line. `None` past [`type_count`](Self::type_count).
    /// Allocation-free.
    #[must_use]
    pub fn type_hash(&self, line: usize) -> Option<(&'static str, u64)> {
        let n_components = self.layout.components.len();
        if let Some(ops) = self.layout.components.get(line) {
            let h = (ops.column_hash)(&*self.columns[line]);
            return Some((ops.name, h.finish(ops.name)));
        }
        let part = line - n_components;
        let ops = self.layout.parts.get(part)?;
        Some((ops.name, (ops.hash)(&*self.parts[part])))
    }

    /// Fills `out` with the per-type hashes (`out.len()` lines at most;
    /// returns how many were written). Allocation-free.
    pub fn type_hashes_into(&self, out: &mut [u64]) -> usize {
        let n = out.len().min(self.type_count());
        for (line, slot) in out.iter_mut().enumerate().take(n) {
            *slot = self.type_hash(line).map_or(0, |(_, h)| h);
        }
        n
    }

    /// Visits every saved `(component index, entity, row in the saved
    /// column)`.
    fn for_each_value(&self, mut f: impl FnMut(usize, Entity, usize)) {
        let mut cursors = vec![0_usize; self.columns.len()];
        let mut first_entity = 0_usize;
        for a in &self.archetypes {
            let types = &self.archetype_types
                [a.types_start as usize..(a.types_start + a.types_len) as usize];
            for &t in types {
                let t = usize::from(t);
                for row in 0..a.len as usize {
                    f(t, self.entities[first_entity + row], cursors[t] + row);
                }
                cursors[t] += a.len as usize;
            }
            first_entity += a.len as usize;
        }
    }

    /// `(entity bits, value hash, row)` of every value of component `t`,
    /// sorted by entity.
    fn values_of(&self, t: usize) -> Vec<(u64, u64, usize)> {
        let ops = &self.layout.components[t];
        let mut v = Vec::new();
        self.for_each_value(|c, e, row| {
            if c == t {
                v.push((
                    e.to_bits().get(),
                    (ops.value_hash)(&*self.columns[t], row),
                    row,
                ));
            }
        });
        v.sort_unstable();
        v
    }

    /// The field breakdown of component `t`'s value in `row` (path, hash,
    /// value text), or `None` for a type without named parts (a
    /// hand-written `StateHash`).
    fn fields_of(&self, t: usize, row: usize) -> Option<Vec<(String, u64, Option<String>)>> {
        let mut fields = FieldHashes::default();
        (self.layout.components[t].field_hashes)(&*self.columns[t], row, &mut fields)
            .then(|| fields.into_entries())
    }

    /// The first difference between two snapshots, narrowed to the
    /// component type, the entity and the field (a cold path: it
    /// allocates). `None` when the tick, every per-type hash and every
    /// entity agree. A type whose `StateHash` is hand-written (no field
    /// names) is named without a field.
    #[must_use]
    pub fn first_difference(&self, other: &WorldSnapshot) -> Option<SnapshotDifference> {
        if self.tick != other.tick {
            return Some(SnapshotDifference {
                tick: self.tick,
                component: "tick",
                entity: None,
                field: None,
                detail: format!("ticks {} and {}", self.tick, other.tick),
            });
        }
        for line in 0..self.type_count() {
            let (name, ours) = self.type_hash(line)?;
            let theirs = other.type_hash(line).map(|(_, h)| h);
            if Some(ours) == theirs {
                continue;
            }
            let mut diff = SnapshotDifference {
                tick: self.tick,
                component: name,
                entity: None,
                field: None,
                detail: String::new(),
            };
            if line >= self.layout.components.len() {
                diff.detail = format!("part hashes {ours:#018x} and {:#018x}", theirs.unwrap_or(0));
                return Some(diff);
            }
            let (a, b) = (self.values_of(line), other.values_of(line));
            match a.iter().zip(&b).find(|(x, y)| (x.0, x.1) != (y.0, y.1)) {
                Some((x, y)) if x.0 == y.0 => {
                    diff.entity = Some(x.0);
                    let fields = (self.fields_of(line, x.2), other.fields_of(line, y.2));
                    if let (Some(fa), Some(fb)) = fields
                        && let Some((path, detail)) = first_field_difference(&fa, &fb)
                    {
                        diff.field = Some(path);
                        diff.detail = detail;
                    } else {
                        diff.detail = format!("value hashes {:#018x} and {:#018x}", x.1, y.1);
                    }
                }
                Some((x, y)) => {
                    let e = x.0.min(y.0);
                    diff.entity = Some(e);
                    diff.detail =
                        format!("entity {} has it in one snapshot only", describe_entity(e));
                }
                None => {
                    diff.detail = format!("{} and {} entities have it", a.len(), b.len());
                }
            }
            return Some(diff);
        }
        None
    }

    /// The snapshot as text, for `cargo xtask desync-diff`: a header (tick,
    /// state hash), one `type` line per per-type hash, one `value` line per
    /// (component, entity) with the value's hash, sorted. A cold path.
    /// [`dump_fields`](Self::dump_fields) adds the field breakdown.
    #[must_use]
    pub fn dump(&self) -> String {
        self.dump_fields(|_, _| false)
    }

    /// [`dump`](Self::dump), plus, after each `value` line for which
    /// `wanted(component name, entity bits)` holds, one
    /// `field NAME ENTITY PATH HASH [VALUE]` line per field of the value
    /// (none for a type without named parts; `VALUE` where the field's
    /// type gives its text, [`StateHash::value_text`](crate::StateHash::value_text)).
    /// A cold path.
    #[must_use]
    pub fn dump_fields(&self, mut wanted: impl FnMut(&'static str, u64) -> bool) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "laige-snapshot 1");
        let _ = writeln!(out, "tick {}", self.tick);
        let _ = writeln!(out, "state_hash {:#018x}", self.state_hash);
        for line in 0..self.type_count() {
            if let Some((name, h)) = self.type_hash(line) {
                let _ = writeln!(out, "type {name} {h:#018x}");
            }
        }
        let mut values = Vec::new();
        self.for_each_value(|t, e, row| values.push((self.layout.components[t].name, e, t, row)));
        values.sort_unstable_by_key(|(name, e, _, _)| (*name, e.to_bits().get()));
        for (name, e, t, row) in values {
            let bits = e.to_bits().get();
            let entity = describe_entity(bits);
            let h = (self.layout.components[t].value_hash)(&*self.columns[t], row);
            let _ = writeln!(out, "value {name} {entity} {h:#018x}");
            if wanted(name, bits) {
                for (path, h, text) in self.fields_of(t, row).unwrap_or_default() {
                    let _ = match text {
                        Some(v) => writeln!(out, "field {name} {entity} {path} {h:#018x} {v}"),
                        None => writeln!(out, "field {name} {entity} {path} {h:#018x}"),
                    };
                }
            }
        }
        out
    }
}

type FieldEntry = (String, u64, Option<String>);

/// The first field whose hash differs (or that one breakdown lacks: an
/// enum in two variants), as `(path, detail)`; the detail gives both
/// values after the hashes where the field's type says them.
fn first_field_difference(a: &[FieldEntry], b: &[FieldEntry]) -> Option<(String, String)> {
    for (path, ha, ta) in a {
        match b.iter().find(|(p, _, _)| p == path) {
            Some((_, hb, _)) if hb == ha => {}
            Some((_, hb, tb)) => {
                let detail = match (ta, tb) {
                    (Some(va), Some(vb)) => {
                        format!("field hashes {ha:#018x} and {hb:#018x} (values {va} and {vb})")
                    }
                    _ => format!("field hashes {ha:#018x} and {hb:#018x}"),
                };
                return Some((path.clone(), detail));
            }
            None => {
                return Some((
                    path.clone(),
                    "the field is in one snapshot only (another enum variant)".to_owned(),
                ));
            }
        }
    }
    b.iter()
        .find(|(p, _, _)| !a.iter().any(|(q, _, _)| q == p))
        .map(|(p, _, _)| {
            (
                p.clone(),
                "the field is in one snapshot only (another enum variant)".to_owned(),
            )
        })
}

/// An entity's bits as `idvGENERATION` (hecs's `Entity::to_bits` layout:
/// generation in the high 32 bits, id in the low 32 bits).
pub(super) fn describe_entity(bits: u64) -> String {
    format!("{}v{}", bits & 0xffff_ffff, bits >> 32)
}

/// Where two snapshots of the same tick first differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotDifference {
    /// The tick both snapshots hold.
    pub tick: u64,
    /// The registered name of the first differing component type (or
    /// part, or `"tick"`).
    pub component: &'static str,
    /// The first differing entity (`Entity::to_bits`), when one is named.
    pub entity: Option<u64>,
    /// The first differing field of that entity's value, as a path
    /// (`0.x`, `velocity.y`, `Seek.target`), when the type reports its
    /// fields (a derived `StateHash`).
    pub field: Option<String>,
    /// The two values' (or fields') hashes, or which side lacks the
    /// component.
    pub detail: String,
}

impl fmt::Display for SnapshotDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tick {}: component {}", self.tick, self.component)?;
        if let Some(e) = self.entity {
            write!(f, ", entity {}", describe_entity(e))?;
        }
        if let Some(field) = &self.field {
            write!(f, ", field {field}")?;
        }
        write!(f, ": {}", self.detail)
    }
}
