//! Per-frame churn guardrails.

use laige_core::ErrorCode;
use laige_sim::{ChurnBudget, World, WorldConfig, events};

fn world(spawns: u32, despawns: u32) -> World {
    World::with_config(WorldConfig {
        churn: ChurnBudget {
            max_spawns_per_frame: spawns,
            max_despawns_per_frame: despawns,
        },
    })
    .unwrap()
}

#[test]
fn budgets_are_per_frame_and_counted_when_exceeded() {
    let mut w = world(3, 2);
    let setup: Vec<_> = (0..100).map(|i| w.spawn((i,))).collect(); // setup: not budgeted
    assert_eq!(w.churn_stats().frames_over_spawn_budget, 0);
    w.begin_frame();
    for i in 0..3 {
        w.spawn((i,));
    }
    assert_eq!(w.churn_stats().frames_over_spawn_budget, 0);
    w.spawn((4,));
    w.spawn((5,));
    let s = w.churn_stats();
    assert_eq!((s.frame_spawns, s.frames_over_spawn_budget), (5, 1));
    for e in &setup[..3] {
        w.despawn(*e).unwrap();
    }
    assert_eq!(w.churn_stats().frames_over_despawn_budget, 1);
    w.begin_frame();
    w.spawn((6,));
    let s = w.churn_stats();
    assert_eq!((s.frame_spawns, s.frame_despawns, s.frames), (1, 0, 2));
    assert_eq!((s.total_spawns, s.total_despawns), (106, 3));
    assert_eq!(s.frames_over_spawn_budget, 1);
}

#[test]
fn zero_budgets_are_rejected() {
    let err = World::with_config(WorldConfig {
        churn: ChurnBudget {
            max_spawns_per_frame: 0,
            max_despawns_per_frame: 1,
        },
    })
    .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert_eq!(err.id(), events::CHURN_BUDGET_INVALID);
    assert_eq!(err.field(), Some("max_spawns_per_frame"));
}

#[test]
fn despawning_a_dead_entity_counts_nothing() {
    let mut w = world(1, 1);
    let e = w.spawn((1,));
    w.begin_frame();
    w.despawn(e).unwrap();
    assert!(w.despawn(e).is_err());
    assert_eq!(w.churn_stats().frame_despawns, 1);
}
