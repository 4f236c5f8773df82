//! Where two recordings of one run part: [`first_difference`] bisects their
//! recorded state hashes to the first checkpoint that differs and names the
//! window of ticks it lies in, and the keyframe a re-simulation of that
//! window starts from on each side.

use std::fmt;

use laige_core::{Error, Result};

use super::IDENTITY_MISMATCH;
use super::reader::Replay;

/// Where two recordings of one run (same backend, seed and config) first
/// differ ([`first_difference`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayDifference {
    /// The first completed tick count both recorded a hash for and whose
    /// hashes differ.
    pub tick: u64,
    /// The last checkpoint before it with equal hashes (`None`: none).
    /// The states first differ in ticks `last_equal + 1 ..= tick`: one
    /// tick with a hash after every tick.
    pub last_equal: Option<u64>,
    /// The newest usable keyframe at or before `last_equal` in both files
    /// (a re-simulation of the window starts there), if any.
    pub keyframe: Option<u64>,
    /// The first tick whose recorded inputs differ, if any (then the runs
    /// were given different input, not simulated differently).
    pub input: Option<u64>,
}

impl fmt::Display for ReplayDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the recorded state hashes first differ at tick {}",
            self.tick
        )?;
        match self.last_equal {
            Some(t) if t + 1 == self.tick => write!(f, " (tick {t} is equal)")?,
            Some(t) => write!(
                f,
                " (equal at tick {t}: the states part in ticks {}..={})",
                t + 1,
                self.tick
            )?,
            None => write!(f, " (no earlier checkpoint is equal)")?,
        }
        match self.keyframe {
            Some(k) => write!(f, "; both hold the keyframe of tick {k}")?,
            None => write!(f, "; no common keyframe before it")?,
        }
        if let Some(t) = self.input {
            write!(f, "; the recorded inputs differ from tick {t}")?;
        }
        Ok(())
    }
}

/// Bisects two recordings of one run to the first checkpoint whose state
/// hashes differ: a binary search over the ticks both recorded a hash for
/// (a divergence, once there, stays: later states derive from it), so a
/// 100 000-tick pair costs about 17 comparisons. `None` when every common
/// checkpoint is equal.
///
/// # Errors
/// `replay/identity_mismatch` when the two are not recordings of one run
/// (another backend, seed or config hash: field named).
pub fn first_difference(a: &Replay, b: &Replay) -> Result<Option<ReplayDifference>> {
    let (ha, hb) = (a.header(), b.header());
    for (field, x, y) in [
        (
            "backend",
            ha.backend.id().to_owned(),
            hb.backend.id().to_owned(),
        ),
        ("seed", ha.seed.to_string(), hb.seed.to_string()),
        (
            "config_hash",
            format!("{:#018x}", ha.config_hash),
            format!("{:#018x}", hb.config_hash),
        ),
    ] {
        if x != y {
            return Err(Error::invalid_argument(
                IDENTITY_MISMATCH,
                field,
                x,
                format!("{y} (the other recording's): two recordings of one run"),
            ));
        }
    }
    let common: Vec<(u64, u64, u64)> = a
        .checkpoints()
        .filter_map(|(t, h)| b.hash_at(t).map(|g| (t, h, g)))
        .collect();
    let first = common.partition_point(|&(_, x, y)| x == y);
    let Some(&(tick, _, _)) = common.get(first) else {
        return Ok(None);
    };
    let last_equal = first.checked_sub(1).map(|i| common[i].0);
    let usable = |r: &Replay, k: u64| r.keyframes().any(|kf| kf.tick == k && kf.damage.is_none());
    let keyframe = last_equal.and_then(|le| {
        a.keyframes()
            .map(|k| k.tick)
            .filter(|&k| k <= le && usable(a, k) && usable(b, k))
            .last()
    });
    // The ticks both recorded an input for (either may start later).
    let both = a.start_tick().max(b.start_tick())..a.end_tick().min(b.end_tick());
    let input = both.into_iter().find(|&t| a.input(t) != b.input(t));
    Ok(Some(ReplayDifference {
        tick,
        last_equal,
        keyframe,
        input,
    }))
}
