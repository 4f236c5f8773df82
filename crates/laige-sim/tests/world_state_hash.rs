//! The state hash: a function of logical content only.

use laige_sim::{StateHash, World};

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Pos {
    x: i32,
    y: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
struct Vel {
    dx: i32,
    dy: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, StateHash)]
enum Team {
    Red,
    Blue,
}

/// A component that is not registered: never hashed (and may hold floats).
struct RenderCache {
    #[expect(
        clippy::disallowed_types,
        reason = "the point: an unregistered component may hold floats"
    )]
    _scale: f32,
}

fn registered(order_vel_first: bool) -> World {
    let mut w = World::default();
    if order_vel_first {
        w.register_hashed::<Vel>().unwrap();
        w.register_hashed::<Team>().unwrap();
        w.register_hashed::<Pos>().unwrap();
    } else {
        w.register_hashed::<Pos>().unwrap();
        w.register_hashed::<Vel>().unwrap();
        w.register_hashed::<Team>().unwrap();
    }
    w
}

fn content() -> Vec<(Pos, Option<Vel>, Option<Team>)> {
    (0..50)
        .map(|i| {
            (
                Pos { x: i, y: -i * 3 },
                (i % 3 != 0).then_some(Vel { dx: i % 7, dy: 1 }),
                match i % 4 {
                    0 => Some(Team::Red),
                    1 => Some(Team::Blue),
                    _ => None,
                },
            )
        })
        .collect()
}

fn spawn_all(w: &mut World, items: impl Iterator<Item = (Pos, Option<Vel>, Option<Team>)>) {
    for (p, v, t) in items {
        let e = w.spawn((p,));
        if let Some(v) = v {
            w.insert(e, (v,)).unwrap();
        }
        if let Some(t) = t {
            w.insert(e, (t,)).unwrap();
        }
    }
}

#[test]
fn same_content_in_any_order_hashes_equal() {
    let mut a = registered(false);
    spawn_all(&mut a, content().into_iter());

    // Reverse spawn order, components inserted in a different order and as
    // whole bundles, registration in another order, unhashed extras, and
    // despawn history.
    let mut b = registered(true);
    for _ in 0..17 {
        let junk = b.spawn((Pos { x: 999, y: 999 },));
        b.despawn(junk).unwrap();
    }
    for (p, v, t) in content().into_iter().rev() {
        let e = match (v, t) {
            (Some(v), Some(t)) => b.spawn((t, v, p)),
            (Some(v), None) => b.spawn((v, p)),
            (None, Some(t)) => b.spawn((t, p)),
            (None, None) => b.spawn((p,)),
        };
        b.insert(e, (RenderCache { _scale: 0.5 },)).unwrap();
    }
    b.spawn((RenderCache { _scale: 2.0 },)); // no hashed component: no record
    assert_eq!(a.state_hash(), b.state_hash());
}

#[test]
fn archetype_moves_do_not_change_the_hash() {
    let mut w = registered(false);
    spawn_all(&mut w, content().into_iter());
    let before = w.state_hash();
    let e = w.spawn((Pos { x: 1, y: 1 },));
    let with_e = w.state_hash();
    assert_ne!(before, with_e);
    // Move e through other archetypes and back.
    w.insert(e, (RenderCache { _scale: 1.0 },)).unwrap();
    assert_eq!(w.state_hash(), with_e);
    w.remove::<(RenderCache,)>(e).unwrap();
    assert_eq!(w.state_hash(), with_e);
    w.despawn(e).unwrap();
    assert_eq!(w.state_hash(), before);
}

#[test]
fn any_component_change_changes_the_hash() {
    let mut w = registered(false);
    spawn_all(&mut w, content().into_iter());
    let base = w.state_hash();
    let entities: Vec<_> = w.ecs().iter().map(|e| e.entity()).collect();
    let mut seen = std::collections::HashSet::new();
    seen.insert(base);
    for (i, &e) in entities.iter().enumerate() {
        let pos = w.get_copied::<Pos>(e).unwrap();
        w.insert(
            e,
            (Pos {
                x: pos.x + 1,
                ..pos
            },),
        )
        .unwrap();
        let h = w.state_hash();
        assert!(
            seen.insert(h),
            "entity {i}: the changed world hashed like an earlier one"
        );
        w.insert(e, (pos,)).unwrap();
        assert_eq!(w.state_hash(), base);
    }
    // Adding or removing a hashed component changes it too.
    let e = *entities
        .iter()
        .find(|&&e| w.get_copied::<Vel>(e).is_some())
        .unwrap();
    let vel = w.get_copied::<Vel>(e).unwrap();
    w.remove::<(Vel,)>(e).unwrap();
    assert_ne!(w.state_hash(), base);
    w.insert(e, (vel,)).unwrap();
    assert_eq!(w.state_hash(), base);
    w.insert(e, (Team::Blue,)).unwrap();
    let blue = w.state_hash();
    w.insert(e, (Team::Red,)).unwrap();
    assert_ne!(w.state_hash(), blue);
}

#[test]
fn swapping_values_between_entities_changes_the_hash() {
    // Per-entity records: {pos a, vel a'} + {pos b, vel b'} differs from
    // {pos a, vel b'} + {pos b, vel a'}.
    let mut a = registered(false);
    a.spawn((Pos { x: 1, y: 0 }, Vel { dx: 10, dy: 0 }));
    a.spawn((Pos { x: 2, y: 0 }, Vel { dx: 20, dy: 0 }));
    let mut b = registered(false);
    b.spawn((Pos { x: 1, y: 0 }, Vel { dx: 20, dy: 0 }));
    b.spawn((Pos { x: 2, y: 0 }, Vel { dx: 10, dy: 0 }));
    assert_ne!(a.state_hash(), b.state_hash());
}

#[test]
fn duplicates_count() {
    let mut one = registered(false);
    one.spawn((Pos { x: 1, y: 1 },));
    let mut two = registered(false);
    two.spawn((Pos { x: 1, y: 1 },));
    two.spawn((Pos { x: 1, y: 1 },));
    assert_ne!(one.state_hash(), two.state_hash());
}

#[test]
fn the_tick_counter_is_hashed() {
    let mut w = registered(false);
    w.spawn((Pos { x: 1, y: 1 },));
    let schedule = w.schedule_systems();
    let before = w.state_hash();
    w.run_systems(&schedule).unwrap();
    assert_eq!(w.tick(), 1);
    assert_ne!(w.state_hash(), before);
}

#[test]
fn the_hash_is_stable_across_calls_and_known() {
    let mut w = registered(false);
    assert_eq!(w.state_hash(), w.state_hash());
    let empty = w.state_hash();
    w.spawn((Pos { x: 3, y: 4 },));
    assert_ne!(w.state_hash(), empty);
    // An empty world at tick 0: FNV-1a 64 of sixteen zero bytes.
    let mut h = laige_sim::StateHasher::default();
    h.write_bytes(&[0; 16]);
    assert_eq!(empty, h.finish());
}

#[test]
fn registration_is_idempotent_and_canonically_ordered() {
    let mut w = registered(true);
    w.register_hashed::<Pos>().unwrap();
    let names: Vec<_> = w.hashed_components().collect();
    assert_eq!(names.len(), 3);
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}
