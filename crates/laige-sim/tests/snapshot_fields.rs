//! Difference reports down to the field: a derived component's differing
//! field is named as a path (nested fields, enum variants, tuple indices),
//! a hand-written `StateHash` is named without a field, and the dump's
//! field lines appear only for the values asked for. The per-type lines
//! agree between equal worlds and do not depend on row order.

use laige_core::{Fpx16_16, Vec2};
use laige_sim::snapshot::SnapshotRing;
use laige_sim::{FieldHashes, StateHash, StateHasher, World};

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Body {
    velocity: Vec2<Fpx16_16>,
    mass: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
enum Mode {
    Idle,
    Seek { target: Vec2<Fpx16_16> },
    Flee(u8, u8),
}

/// A hand-written impl: no field names.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Opaque(u32, u32);

impl StateHash for Opaque {
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(self.0);
        hasher.write_u32(self.1);
    }
}

fn v(x: i32, y: i32) -> Vec2<Fpx16_16> {
    Vec2::new(Fpx16_16::from_raw(x), Fpx16_16::from_raw(y))
}

/// A world of three entities with a `Body`, a `Mode` and an `Opaque`.
fn world() -> World {
    let mut world = World::default();
    world.register_hashed_as::<Body>("test.body").unwrap();
    world.register_hashed_as::<Mode>("test.mode").unwrap();
    world.register_hashed_as::<Opaque>("test.opaque").unwrap();
    for i in 0..3 {
        world.ecs_mut().spawn((
            Body {
                velocity: v(i, -i),
                mass: 10,
            },
            Mode::Seek { target: v(7, 8) },
            Opaque(1, 2),
        ));
    }
    world
}

/// The first difference after `change` is applied to the second entity of
/// a second, equal world.
fn difference(
    change: impl FnOnce(&mut Body, &mut Mode, &mut Opaque),
) -> laige_sim::snapshot::SnapshotDifference {
    let (a, mut b) = (world(), world());
    let victim = b.ecs().iter().nth(1).unwrap().entity();
    {
        let q = b
            .ecs_mut()
            .query_one_mut::<(&mut Body, &mut Mode, &mut Opaque)>(victim)
            .unwrap();
        change(q.0, q.1, q.2);
    }
    let mut ring_a = SnapshotRing::new(&a, 1).unwrap();
    let mut ring_b = SnapshotRing::new(&b, 1).unwrap();
    ring_a.save(0, &a).unwrap();
    ring_b.save(0, &b).unwrap();
    let d = ring_a
        .get(0)
        .unwrap()
        .first_difference(ring_b.get(0).unwrap())
        .unwrap();
    assert_eq!(d.entity, Some(victim.to_bits().get()), "{d}");
    d
}

#[test]
fn a_nested_field_is_named_as_a_path() {
    let d = difference(|body, _, _| body.velocity.y = Fpx16_16::from_raw(99));
    assert_eq!(d.component, "test.body");
    assert_eq!(d.field.as_deref(), Some("velocity.y"), "{d}");
    // The field hashes, then both values.
    let text = d.to_string();
    assert!(
        text.contains(", field velocity.y: field hashes ") && text.contains(" and 0.00151)"),
        "{d}"
    );
}

#[test]
fn an_enum_field_is_named_under_its_variant_and_another_variant_is_named() {
    let d = difference(|_, mode, _| *mode = Mode::Seek { target: v(7, 9) });
    assert_eq!(d.component, "test.mode");
    assert_eq!(d.field.as_deref(), Some("Seek.target.y"), "{d}");
    let d = difference(|_, mode, _| *mode = Mode::Idle);
    assert_eq!(d.field.as_deref(), Some("Seek.target.x"), "{d}");
    assert!(d.detail.contains("one snapshot only"), "{d}");
    let d = difference(|_, mode, _| *mode = Mode::Flee(1, 2));
    assert_eq!(d.field.as_deref(), Some("Seek.target.x"), "{d}");
}

#[test]
fn a_hand_written_state_hash_is_named_without_a_field() {
    let d = difference(|_, _, opaque| opaque.1 = 3);
    assert_eq!(d.component, "test.opaque");
    assert_eq!(d.field, None);
    assert!(d.to_string().contains(": value hashes"), "{d}");
}

#[test]
fn tuple_fields_and_unit_variants_are_reported_by_index_and_name() {
    let fields = |m: &Mode| -> Vec<String> {
        FieldHashes::of(m)
            .unwrap()
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    };
    assert_eq!(fields(&Mode::Flee(1, 2)), ["Flee.0", "Flee.1"]);
    assert_eq!(fields(&Mode::Idle), ["Idle"]);
    assert!(FieldHashes::of(&Opaque(1, 2)).is_none());
    // Each field's hash is that field's state hash.
    let f = FieldHashes::of(&Mode::Flee(1, 2)).unwrap();
    assert_eq!(f[1].1, laige_sim::hash_of(&2_u8));
}

#[test]
fn the_dump_breaks_down_only_the_values_asked_for() {
    let w = world();
    let mut ring = SnapshotRing::new(&w, 1).unwrap();
    ring.save(0, &w).unwrap();
    let snap = ring.get(0).unwrap();
    let second = w.ecs().iter().nth(1).unwrap().entity().to_bits().get();
    let dump = snap.dump_fields(|name, e| name == "test.body" && e == second);
    let fields: Vec<&str> = dump.lines().filter(|l| l.starts_with("field ")).collect();
    assert_eq!(fields.len(), 3, "{dump}");
    assert!(
        fields[0].starts_with("field test.body 1v1 velocity.x 0x"),
        "{dump}"
    );
    assert!(
        fields[2].starts_with("field test.body 1v1 mass 0x"),
        "{dump}"
    );
    // Without field lines the dump is the plain one.
    assert_eq!(
        snap.dump(),
        dump.lines()
            .filter(|l| !l.starts_with("field "))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    );
}

#[test]
fn per_type_lines_ignore_row_order_and_see_a_swapped_value() {
    let a = world();
    // The same values spawned in another order.
    let mut b = World::default();
    b.register_hashed_as::<Body>("test.body").unwrap();
    b.register_hashed_as::<Mode>("test.mode").unwrap();
    b.register_hashed_as::<Opaque>("test.opaque").unwrap();
    for i in (0..3).rev() {
        b.ecs_mut().spawn((
            Body {
                velocity: v(i, -i),
                mass: 10,
            },
            Mode::Seek { target: v(7, 8) },
            Opaque(1, 2),
        ));
    }
    let lines = |w: &World| {
        let mut ring = SnapshotRing::new(w, 1).unwrap();
        ring.save(0, w).unwrap();
        let mut out = [0_u64; 3];
        assert_eq!(ring.get(0).unwrap().type_hashes_into(&mut out), 3);
        out
    };
    assert_eq!(lines(&a), lines(&b));
    // Swapping two words inside one value changes its line.
    let e = b.ecs().iter().next().unwrap().entity();
    b.ecs_mut().get::<&mut Body>(e).unwrap().velocity = v(-2, 2);
    let (la, lb) = (lines(&a), lines(&b));
    assert_ne!(la[0], lb[0], "test.body");
    assert_eq!(la[1..], lb[1..]);
}

#[test]
fn one_flipped_bit_of_any_value_changes_its_types_line_only() {
    // Enough rows that the column loop runs its vector body, not only its
    // remainder.
    let world = || {
        let mut w = World::default();
        w.register_hashed_as::<Body>("test.body").unwrap();
        w.register_hashed_as::<Opaque>("test.opaque").unwrap();
        for i in 0..40 {
            w.ecs_mut().spawn((
                Body {
                    velocity: v(i * 65_536 + 3, -i * 7),
                    mass: u16::try_from(i).unwrap() * 11,
                },
                Opaque(u32::try_from(i).unwrap(), 0xdead_beef),
            ));
        }
        w
    };
    let lines = |w: &World| {
        let mut ring = SnapshotRing::new(w, 1).unwrap();
        ring.save(0, w).unwrap();
        let mut out = [0_u64; 2];
        assert_eq!(ring.get(0).unwrap().type_hashes_into(&mut out), 2);
        out
    };
    let before = lines(&world());
    let victim = |w: &World| w.ecs().iter().nth(17).unwrap().entity();
    let mut checked = 0;
    for bit in 0..32 {
        for field in 0..3 {
            if field == 2 && bit >= 16 {
                continue;
            }
            let mut w = world();
            let e = victim(&w);
            {
                let mut body = w.ecs_mut().get::<&mut Body>(e).unwrap();
                match field {
                    0 => {
                        body.velocity.x = Fpx16_16::from_raw(body.velocity.x.to_raw() ^ (1 << bit))
                    }
                    1 => {
                        body.velocity.y = Fpx16_16::from_raw(body.velocity.y.to_raw() ^ (1 << bit))
                    }
                    _ => body.mass ^= 1 << bit,
                }
            }
            let after = lines(&w);
            assert_ne!(after[0], before[0], "test.body: field {field}, bit {bit}");
            assert_eq!(after[1], before[1], "test.opaque: field {field}, bit {bit}");
            checked += 1;
        }
        for half in 0..2 {
            let mut w = world();
            let e = victim(&w);
            {
                let mut o = w.ecs_mut().get::<&mut Opaque>(e).unwrap();
                if half == 0 {
                    o.0 ^= 1 << bit;
                } else {
                    o.1 ^= 1 << bit;
                }
            }
            let after = lines(&w);
            assert_eq!(
                after[0], before[0],
                "test.body: opaque half {half}, bit {bit}"
            );
            assert_ne!(after[1], before[1], "test.opaque: half {half}, bit {bit}");
            checked += 1;
        }
    }
    assert_eq!(checked, 32 + 32 + 16 + 64);
}
