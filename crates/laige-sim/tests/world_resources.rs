//! Resources through the public API: typed singletons read and written by
//! systems, a clear error naming a missing type, and the hashed ones in the
//! state hash (the unhashed ones and resource-free worlds not).

use laige_core::ErrorCode;
use laige_sim::{SimRng, StateHash, StateHasher, World, events};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Score {
    left: u32,
    right: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, StateHash)]
struct Round(u16);

/// Not simulation state: a cache, any type.
#[derive(Debug, Default)]
struct Cache(Vec<String>);

#[test]
fn systems_read_and_write_resources_and_the_world_reads_them_after() {
    let mut world = World::default();
    world
        .insert_hashed_resource("pong.score", Score::default())
        .unwrap();
    world.insert_resource(Cache::default());
    world
        .register_system("goal", 0, |ctx| {
            let tick = ctx.tick();
            let score = ctx.resource_mut::<Score>()?;
            if tick % 2 == 0 {
                score.left += 1;
            } else {
                score.right += 1;
            }
            ctx.resource_mut::<Cache>()?.0.clear();
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    for _ in 0..5 {
        world.run_systems(&schedule).unwrap();
    }
    assert_eq!(
        *world.resource::<Score>().unwrap(),
        Score { left: 3, right: 2 }
    );
    assert!(world.contains_resource::<Cache>());
    assert_eq!(world.hashed_resources().collect::<Vec<_>>(), ["pong.score"]);
    // Replacing keeps the hashed registration and returns the old value.
    assert_eq!(
        world.insert_resource(Score::default()),
        Some(Score { left: 3, right: 2 })
    );
    assert_eq!(world.hashed_resources().count(), 1);
    assert_eq!(world.remove_resource::<Score>(), Some(Score::default()));
    assert_eq!(world.hashed_resources().count(), 0);
}

#[test]
fn a_missing_resource_is_an_error_naming_its_type() {
    let mut world = World::default();
    let err = world.resource::<Score>().unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(err.id(), events::NO_SUCH_RESOURCE);
    assert!(err.to_string().contains("Score"), "{err}");
    // A system that asks for it fails the tick with the same error.
    world
        .register_system("reads", 0, |ctx| ctx.resource::<Round>().map(|_| ()))
        .unwrap();
    let schedule = world.schedule_systems();
    let err = world.run_systems(&schedule).unwrap_err();
    assert_eq!(err.id(), events::NO_SUCH_RESOURCE);
    assert!(err.to_string().contains("Round"), "{err}");
    assert_eq!(world.tick(), 0);
}

#[test]
fn hashed_resources_are_in_the_state_hash_and_plain_ones_are_not() {
    let empty = World::default().state_hash();
    // A plain resource changes nothing: resource-free hashes stay valid.
    let mut plain = World::default();
    plain.insert_resource(Score { left: 9, right: 9 });
    assert_eq!(plain.state_hash(), empty);

    let mut a = World::default();
    a.insert_hashed_resource("score", Score::default()).unwrap();
    assert_ne!(a.state_hash(), empty);
    let zero = a.state_hash();
    a.resource_mut::<Score>().unwrap().left = 1;
    let one = a.state_hash();
    assert_ne!(one, zero);
    a.resource_mut::<Score>().unwrap().left = 0;
    assert_eq!(a.state_hash(), zero);

    // The canonical form: tick, record count 0, then the resource count
    // and one record per resource (name order), each FNV-1a 64 over the
    // name's FNV-1a 64 and the encoding.
    let name_hash = |name: &str| {
        let mut h = StateHasher::default();
        h.write_bytes(name.as_bytes());
        h.finish()
    };
    let record = |name: &str, value: &dyn Fn(&mut StateHasher)| {
        let mut h = StateHasher::default();
        h.write_u64(name_hash(name));
        value(&mut h);
        h.finish()
    };
    let mut expected = StateHasher::default();
    expected.write_u64(0);
    expected.write_u64(0);
    expected.write_u64(1);
    expected.write_u64(record("score", &|h| Score::default().hash_state(h)));
    assert_eq!(zero, expected.finish());

    // Insertion order does not matter; names order the records.
    let mut b = World::default();
    b.insert_hashed_resource("z.round", Round(2)).unwrap();
    b.insert_hashed_resource("a.score", Score::default())
        .unwrap();
    let mut c = World::default();
    c.insert_hashed_resource("a.score", Score::default())
        .unwrap();
    c.insert_hashed_resource("z.round", Round(2)).unwrap();
    assert_eq!(b.state_hash(), c.state_hash());
    let mut expected = StateHasher::default();
    expected.write_u64(0);
    expected.write_u64(0);
    expected.write_u64(2);
    expected.write_u64(record("a.score", &|h| Score::default().hash_state(h)));
    expected.write_u64(record("z.round", &|h| Round(2).hash_state(h)));
    assert_eq!(b.state_hash(), expected.finish());

    // The name is part of the state: same value, other name, other hash.
    let mut d = World::default();
    d.insert_hashed_resource("b.score", Score::default())
        .unwrap();
    d.insert_hashed_resource("z.round", Round(2)).unwrap();
    assert_ne!(d.state_hash(), b.state_hash());
}

#[test]
fn the_rng_is_a_hashed_resource_like_any_other() {
    let mut world = World::default();
    world.insert_hashed_resource("rng", SimRng::new(7)).unwrap();
    world
        .register_system("roll", 0, |ctx| {
            let _ = ctx.resource_mut::<SimRng>()?.next_u64();
            Ok(())
        })
        .unwrap();
    let schedule = world.schedule_systems();
    let h0 = world.state_hash();
    world.run_systems(&schedule).unwrap();
    let mut reference = SimRng::new(7);
    let _ = reference.next_u64();
    assert_eq!(*world.resource::<SimRng>().unwrap(), reference);
    // Only the draw and the tick changed: a world with the advanced rng at
    // tick 0 differs from h0 by the rng alone.
    let mut fresh = World::default();
    fresh.insert_hashed_resource("rng", reference).unwrap();
    assert_ne!(fresh.state_hash(), h0);
}

#[test]
fn bad_hashed_resource_names_are_rejected_and_change_nothing() {
    let mut world = World::default();
    let empty = world.insert_hashed_resource("", Round(1)).unwrap_err();
    assert_eq!(empty.id(), events::RESOURCE_NAME_INVALID);
    world.insert_hashed_resource("round", Round(1)).unwrap();
    // Same name for another type.
    let taken = world
        .insert_hashed_resource("round", Score::default())
        .unwrap_err();
    assert_eq!(taken.id(), events::RESOURCE_NAME_INVALID);
    // Another name for the same type.
    let renamed = world
        .insert_hashed_resource("round2", Round(1))
        .unwrap_err();
    assert_eq!(renamed.id(), events::RESOURCE_NAME_INVALID);
    // A plain resource cannot become hashed by re-insertion.
    world.insert_resource(Score::default());
    let plain = world
        .insert_hashed_resource("score", Score::default())
        .unwrap_err();
    assert_eq!(plain.id(), events::RESOURCE_NAME_INVALID);
    assert_eq!(world.hashed_resources().collect::<Vec<_>>(), ["round"]);
    // Re-inserting under its own name replaces the value.
    assert_eq!(
        world.insert_hashed_resource("round", Round(5)).unwrap(),
        Some(Round(1))
    );
    assert_eq!(*world.resource::<Round>().unwrap(), Round(5));
}
