//! Per-frame entity churn guardrails (spawns and despawns per frame).
//!
//! Every spawn and despawn that goes through [`World`](crate::World) or a
//! [`SystemContext`](crate::SystemContext) is counted against a per-frame
//! budget. The window is one presentation frame:
//! [`World::begin_frame`](crate::World::begin_frame) (driven once per frame
//! by the game loop, before the frame's ticks) closes the previous window
//! and opens the next, so a catch-up frame running N ticks counts all N
//! ticks of churn against one budget — the guardrail flags the heavier work,
//! which is the documented overload signal.
//!
//! Exceeding a budget is not an error: the frame goes on, the excess is
//! counted in [`ChurnStats`] and one rate-limited Warn
//! (`world/spawn_budget_exceeded` / `world/despawn_budget_exceeded`) fires
//! the moment the budget is first exceeded in a frame. Spawns and despawns
//! before the first `begin_frame` (world setup) count in the totals but not
//! against a budget.

use laige_core::{Error, Result};

use crate::{emit, events};

/// The default per-frame spawn and despawn budget: 1024.
///
/// Where it comes from: the reference world is 10k entities (the M1 budget
/// workload); a frame that creates or destroys about a tenth of it is churn
/// worth flagging (archetype moves and entity-table growth dominate such a
/// frame). A game with legitimate bursts raises it in [`ChurnBudget`].
pub const DEFAULT_CHURN_BUDGET: u32 = 1024;

/// The per-frame churn budgets. Both must be at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChurnBudget {
    /// Spawns allowed per frame before `world/spawn_budget_exceeded`
    /// (default [`DEFAULT_CHURN_BUDGET`]).
    pub max_spawns_per_frame: u32,
    /// Despawns allowed per frame before `world/despawn_budget_exceeded`
    /// (default [`DEFAULT_CHURN_BUDGET`]).
    pub max_despawns_per_frame: u32,
}

impl Default for ChurnBudget {
    fn default() -> Self {
        Self {
            max_spawns_per_frame: DEFAULT_CHURN_BUDGET,
            max_despawns_per_frame: DEFAULT_CHURN_BUDGET,
        }
    }
}

impl ChurnBudget {
    /// Checks both budgets are at least 1 (`world/churn_budget_invalid`,
    /// naming the field).
    ///
    /// # Errors
    /// [`ErrorCode::InvalidArgument`](laige_core::ErrorCode::InvalidArgument)
    /// for a zero budget, after one rate-limited warn.
    pub fn validate(&self) -> Result<()> {
        for (field, value) in [
            ("max_spawns_per_frame", self.max_spawns_per_frame),
            ("max_despawns_per_frame", self.max_despawns_per_frame),
        ] {
            if value == 0 {
                let err =
                    Error::invalid_argument(events::CHURN_BUDGET_INVALID, field, value, ">= 1");
                emit::report(&err);
                return Err(err);
            }
        }
        Ok(())
    }
}

/// Churn counters: the current frame's window and the totals since the
/// world was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChurnStats {
    /// Spawns in the current frame window.
    pub frame_spawns: u32,
    /// Despawns in the current frame window.
    pub frame_despawns: u32,
    /// Every counted spawn since creation (setup included).
    pub total_spawns: u64,
    /// Every counted despawn since creation (setup included).
    pub total_despawns: u64,
    /// Frames whose spawns exceeded the budget.
    pub frames_over_spawn_budget: u64,
    /// Frames whose despawns exceeded the budget.
    pub frames_over_despawn_budget: u64,
    /// Frame windows opened by `begin_frame` so far.
    pub frames: u64,
}

/// The counter behind the guardrail (owned by the world).
#[derive(Debug, Default)]
pub(crate) struct ChurnGuard {
    budget: ChurnBudget,
    stats: ChurnStats,
}

impl ChurnGuard {
    pub(crate) fn new(budget: ChurnBudget) -> Self {
        Self {
            budget,
            stats: ChurnStats::default(),
        }
    }

    pub(crate) fn begin_frame(&mut self) {
        self.stats.frame_spawns = 0;
        self.stats.frame_despawns = 0;
        self.stats.frames += 1;
    }

    #[inline]
    pub(crate) fn on_spawn(&mut self) {
        let s = &mut self.stats;
        s.total_spawns += 1;
        if s.frames == 0 {
            return;
        }
        s.frame_spawns = s.frame_spawns.saturating_add(1);
        if s.frame_spawns == self.budget.max_spawns_per_frame.saturating_add(1) {
            s.frames_over_spawn_budget += 1;
            emit::spawn_budget_exceeded(s.frames, s.frame_spawns, self.budget.max_spawns_per_frame);
        }
    }

    #[inline]
    pub(crate) fn on_despawn(&mut self) {
        let s = &mut self.stats;
        s.total_despawns += 1;
        if s.frames == 0 {
            return;
        }
        s.frame_despawns = s.frame_despawns.saturating_add(1);
        if s.frame_despawns == self.budget.max_despawns_per_frame.saturating_add(1) {
            s.frames_over_despawn_budget += 1;
            emit::despawn_budget_exceeded(
                s.frames,
                s.frame_despawns,
                self.budget.max_despawns_per_frame,
            );
        }
    }

    pub(crate) fn stats(&self) -> ChurnStats {
        self.stats
    }

    pub(crate) fn budget(&self) -> ChurnBudget {
        self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use laige_core::ErrorCode;

    #[test]
    fn zero_budget_is_rejected_naming_the_field() {
        let err = ChurnBudget {
            max_spawns_per_frame: 4,
            max_despawns_per_frame: 0,
        }
        .validate()
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert_eq!(err.id(), events::CHURN_BUDGET_INVALID);
        assert_eq!(err.field(), Some("max_despawns_per_frame"));
    }

    #[test]
    fn setup_churn_counts_in_totals_only() {
        let mut g = ChurnGuard::new(ChurnBudget {
            max_spawns_per_frame: 2,
            max_despawns_per_frame: 2,
        });
        for _ in 0..10 {
            g.on_spawn();
        }
        let s = g.stats();
        assert_eq!(
            (s.total_spawns, s.frame_spawns, s.frames_over_spawn_budget),
            (10, 0, 0)
        );
    }

    #[test]
    fn exceeding_counts_one_frame_per_window() {
        let mut g = ChurnGuard::new(ChurnBudget {
            max_spawns_per_frame: 2,
            max_despawns_per_frame: 1,
        });
        g.begin_frame();
        for _ in 0..5 {
            g.on_spawn();
        }
        g.on_despawn();
        let s = g.stats();
        assert_eq!(s.frame_spawns, 5);
        assert_eq!(s.frames_over_spawn_budget, 1);
        assert_eq!(s.frames_over_despawn_budget, 0);
        g.begin_frame();
        g.on_spawn();
        g.on_despawn();
        g.on_despawn();
        let s = g.stats();
        assert_eq!((s.frame_spawns, s.frame_despawns), (1, 2));
        assert_eq!(s.frames_over_spawn_budget, 1);
        assert_eq!(s.frames_over_despawn_budget, 1);
        assert_eq!((s.total_spawns, s.total_despawns, s.frames), (6, 3, 2));
    }
}
