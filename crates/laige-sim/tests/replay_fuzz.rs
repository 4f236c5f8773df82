//! Property-based fuzzing of the replay reader and verifier: valid
//! recordings (random ticks, inputs and hash intervals) cut, edited,
//! spliced and extended at random. No input panics; every rejection is a
//! `replay/*` error naming the failed check; an accepted file is exactly
//! the recorded one; a cut file verifies as torn, never as complete.
//!
//! 10,000 cases per run (about 4 s in a debug build).

use laige_core::{ErrorCode, MathBackend};
use laige_sim::replay::{
    self, PrefixVerification, Replay, ReplayHeader, ReplayRecorder, ReplayTarget,
};
use proptest::prelude::*;

/// A pure target: its state is a running hash of every tick and input.
#[derive(Default)]
struct Mixer(u64);

impl ReplayTarget for Mixer {
    fn run_tick(&mut self, tick: u64, input: &[u8]) -> laige_core::Result<()> {
        let mut h = self.0 ^ tick.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        for &b in input {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
        Ok(())
    }

    fn state_hash(&mut self) -> u64 {
        self.0
    }
}

/// Records `inputs` with a hash every `interval` ticks, as a recorder's
/// caller must.
fn record(inputs: &[Vec<u8>], interval: u32) -> Vec<u8> {
    let mut header = ReplayHeader::new(MathBackend::FixedPoint16_16, 3, 4);
    header.hash_interval = interval;
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    let mut target = Mixer::default();
    rec.record_hash(0, target.state_hash()).unwrap();
    for (t, input) in inputs.iter().enumerate() {
        let t = t as u64;
        rec.record_input_bytes(t, input).unwrap();
        target.run_tick(t, input).unwrap();
        if rec.wants_hash(t + 1) {
            rec.record_hash(t + 1, target.state_hash()).unwrap();
        }
    }
    rec.finish().unwrap()
}

#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Cut(usize),
    Splice(usize, usize),
    Append(Vec<u8>),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(a, v)| Edit::Set(a, v)),
        any::<usize>().prop_map(Edit::Cut),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Splice(a, b)),
        proptest::collection::vec(any::<u8>(), 1..64).prop_map(Edit::Append),
    ]
}

fn apply(bytes: &mut Vec<u8>, e: &Edit) {
    let n = bytes.len().max(1);
    match e {
        Edit::Set(at, v) => {
            let i = at % n;
            if let Some(b) = bytes.get_mut(i) {
                *b = *v;
            }
        }
        Edit::Cut(at) => bytes.truncate(at % (bytes.len() + 1)),
        Edit::Splice(a, b) => {
            // Remove a range: a record dropped or a block lost.
            let (a, b) = (a % n, b % n);
            let (lo, hi) = (a.min(b), a.max(b).min(bytes.len()));
            bytes.drain(lo..hi);
        }
        Edit::Append(tail) => bytes.extend_from_slice(tail),
    }
}

fn check(inputs: &[Vec<u8>], interval: u32, edits: &[Edit]) -> Result<(), TestCaseError> {
    let original = record(inputs, interval);
    let mut bytes = original.clone();
    for e in edits {
        apply(&mut bytes, e);
    }
    let cut_only = edits.iter().all(|e| matches!(e, Edit::Cut(_)));
    let named = |e: &laige_core::Error| {
        e.field().is_some() && e.id().subsystem() == "replay" && !e.to_string().is_empty()
    };
    match Replay::parse(&bytes) {
        Ok(r) => {
            prop_assert_eq!(&bytes, &original, "only the recorded file parses intact");
            prop_assert!(r.is_complete());
            prop_assert_eq!(r.ticks(), inputs.len() as u64);
        }
        Err(e) => prop_assert!(named(&e), "{}", e),
    }
    let prefix = match Replay::parse_prefix(&bytes) {
        Ok(p) => p,
        Err(e) => {
            prop_assert!(named(&e), "{}", e);
            prop_assert_eq!(e.code(), ErrorCode::Corrupt);
            return Ok(());
        }
    };
    // Intact means complete; bytes after the end record are damage of a
    // complete file.
    prop_assert!(prefix.damage.is_some() || prefix.replay.is_complete());
    prop_assert!(prefix.damage.is_some() || prefix.replay.ticks() == inputs.len() as u64);
    if let Some(d) = &prefix.damage {
        prop_assert!(named(d), "{}", d);
    }
    let torn = prefix.is_torn();
    let prefix_ticks = prefix.replay.ticks();
    prop_assert!(prefix_ticks <= inputs.len() as u64 || !cut_only);
    match replay::verify_prefix(prefix, &mut Mixer::default()) {
        Ok(PrefixVerification::Complete(v)) => {
            prop_assert_eq!(&bytes, &original);
            prop_assert!(v.divergence.is_none());
            prop_assert!(v.checkpoints >= 1);
        }
        Ok(PrefixVerification::Torn(t)) => {
            prop_assert!(torn);
            prop_assert_eq!(t.torn_after_tick, prefix_ticks);
            prop_assert!(t.verification.checkpoints >= 1 || t.verification.divergence.is_some());
            if cut_only {
                prop_assert!(t.verification.divergence.is_none(), "{}", t);
                prop_assert!(t.verification.verified_ticks <= prefix_ticks);
            }
        }
        Err(e) => {
            prop_assert!(named(&e), "{}", e);
            if cut_only {
                // A cut file is torn: it only fails when nothing was left to compare.
                prop_assert_eq!(e.id(), laige_sim::events::NOTHING_VERIFIED, "{}", e);
            }
        }
    }
    Ok(())
}

fn inputs() -> impl Strategy<Value = Vec<Vec<u8>>> {
    proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..6), 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, max_shrink_time: 30_000, ..ProptestConfig::default() })]

    #[test]
    fn edited_recordings_never_panic_and_name_their_damage(
        inputs in inputs(),
        interval in 1_u32..5,
        edits in proptest::collection::vec(edit(), 0..4),
    ) {
        check(&inputs, interval, &edits)?;
    }
}
