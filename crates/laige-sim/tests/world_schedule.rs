//! Named systems, declared order, schedule staleness.

use std::sync::{Arc, Mutex};

use laige_core::ErrorCode;
use laige_sim::{World, events};

#[test]
fn systems_run_by_order_key_then_registration() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let mut w = World::default();
    for (name, order) in [("c", 20), ("a", 10), ("b", 10), ("z", -5), ("d", 20)] {
        let log = Arc::clone(&log);
        w.register_system(name, order, move |ctx| {
            log.lock().unwrap().push(ctx.system_name());
            Ok(())
        })
        .unwrap();
    }
    let s = w.schedule_systems();
    assert_eq!(s.len(), 5);
    assert_eq!(
        w.scheduled_names(&s).collect::<Vec<_>>(),
        ["z", "a", "b", "c", "d"]
    );
    w.run_systems(&s).unwrap();
    w.run_systems(&s).unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        ["z", "a", "b", "c", "d", "z", "a", "b", "c", "d"]
    );
    assert_eq!(w.tick(), 2);
}

#[test]
fn names_must_be_unique_and_non_empty() {
    let mut w = World::default();
    w.register_system("move", 0, |_| Ok(())).unwrap();
    for bad in ["move", "", " padded"] {
        let err = w.register_system(bad, 1, |_| Ok(())).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.id(), events::SYSTEM_NAME_INVALID);
        assert_eq!(err.field(), Some("name"));
    }
    assert_eq!(w.systems().count(), 1);
}

#[test]
fn a_rejected_registration_does_not_stale_the_schedule() {
    let mut w = World::default();
    w.register_system("a", 0, |_| Ok(())).unwrap();
    let s = w.schedule_systems();
    assert!(w.register_system("a", 0, |_| Ok(())).is_err());
    w.run_systems(&s).unwrap();
}

#[test]
fn each_registration_stales_earlier_schedules_only() {
    let mut w = World::default();
    let s0 = w.schedule_systems();
    w.register_system("a", 0, |_| Ok(())).unwrap();
    let s1 = w.schedule_systems();
    let s1b = w.schedule_systems();
    assert_eq!(s1, s1b);
    assert_eq!(w.run_systems(&s0).unwrap_err().id(), events::SCHEDULE_STALE);
    w.run_systems(&s1).unwrap();
    w.register_system("b", 0, |_| Ok(())).unwrap();
    assert_eq!(
        w.run_systems(&s1b).unwrap_err().id(),
        events::SCHEDULE_STALE
    );
    assert_eq!(w.scheduled_names(&s1).count(), 0);
    assert_eq!(w.tick(), 1);
}

#[test]
fn a_schedule_of_a_twin_world_is_foreign() {
    let make = || {
        let mut w = World::default();
        w.register_system("a", 0, |_| Ok(())).unwrap();
        w
    };
    let mut a = make();
    let b = make();
    let err = a.run_systems(&b.schedule_systems()).unwrap_err();
    assert_eq!(err.id(), events::SCHEDULE_INVALID);
    assert_eq!(a.tick(), 0);
}

#[test]
fn systems_spawn_and_despawn_through_the_context() {
    let mut w = World::default();
    let victim = w.spawn((1_u8,));
    w.register_system("churn", 0, move |ctx| {
        let e = ctx.spawn((2_u8,));
        assert!(ctx.contains(e));
        if ctx.contains(victim) {
            ctx.despawn(victim)?;
        }
        let err = ctx.despawn(victim).unwrap_err();
        assert_eq!(err.id(), events::NO_SUCH_ENTITY);
        Ok(())
    })
    .unwrap();
    let s = w.schedule_systems();
    w.begin_frame();
    w.run_systems(&s).unwrap();
    let c = w.churn_stats();
    assert_eq!((c.frame_spawns, c.frame_despawns), (1, 1));
    assert_eq!((c.total_spawns, c.total_despawns), (2, 1));
    assert_eq!(w.len(), 1);
}
