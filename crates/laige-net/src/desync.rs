//! Desync reporting: the checksum GGRS exchanges carries per-type hash
//! buckets, so a peer that sees a mismatch can name the differing
//! component types without another message.

use std::fmt::Display;

use laige_core::event;
use laige_sim::snapshot::WorldSnapshot;

use crate::events;
use crate::outcome::NetEnd;

/// The end of a P2P session whose checksums differ at `tick`, and the
/// tick's dump. The report states both full checksums (state hash and
/// per-type part), the component types whose per-type buckets differ
/// (named from `names`, any snapshot of the session's ring: every snapshot
/// has the same type lines), and which part differed, with what that
/// means. The tick's own snapshot `snap`, if the ring still holds it, is
/// dumped ([`WorldSnapshot::dump_fields`]: every value, the differing
/// types' broken down to the field) into the returned text, and written
/// to `{dump_prefix}-tick{N}.txt` when a prefix is set.
#[cold]
pub(crate) fn report<A>(
    names: Option<&WorldSnapshot>,
    snap: Option<&WorldSnapshot>,
    tick: u64,
    (local, remote): (u128, u128),
    addr: &dyn Display,
    dump_prefix: Option<&str>,
) -> (NetEnd<A>, Option<String>) {
    // Every snapshot of the session has the same type lines: one list
    // names the types and filters the dump.
    let differing = snap.or(names).map(|s| differing_lines(s, local, remote));
    let mut report = describe(tick, (local, remote), addr, differing.as_deref());
    let dump = snap.map(|s| {
        let lines = differing.as_deref().unwrap_or_default();
        s.dump_fields(|name, _| lines.contains(&name))
    });
    match (dump_prefix, &dump) {
        (Some(prefix), Some(dump)) => {
            let path = format!("{prefix}-tick{tick}.txt");
            match std::fs::write(&path, dump) {
                Ok(()) => report.push_str(&format!("; snapshot dumped to {path}")),
                Err(e) => report.push_str(&format!("; dump to {path} failed: {e}")),
            }
        }
        (_, None) => report.push_str("; no snapshot of the tick left to dump"),
        (None, Some(_)) => {}
    }
    let components = differing.map_or_else(|| "unknown".to_owned(), |d| d.join(", "));
    event!(
        Error,
        events::DESYNC,
        tick,
        peer = %addr,
        components = components.as_str(),
        local = %format_args!("{local:#034x}"),
        remote = %format_args!("{remote:#034x}")
    );
    (NetEnd::Desync { tick, report }, dump)
}

/// The state hash (low 64 bits) and the per-type part (high 64 bits) of a
/// checksum.
fn halves(checksum: u128) -> (u64, u64) {
    (
        u64::try_from(checksum & u128::from(u64::MAX)).unwrap_or(0),
        u64::try_from(checksum >> 64).unwrap_or(0),
    )
}

/// The report's text: both checksums in full and in parts, then what
/// differed (`differing`: the types whose buckets differ, `None` when no
/// snapshot could name them).
pub(crate) fn describe(
    tick: u64,
    (local, remote): (u128, u128),
    addr: &dyn Display,
    differing: Option<&[&str]>,
) -> String {
    let ((ls, lp), (rs, rp)) = (halves(local), halves(remote));
    let types = match differing {
        None => "unknown (no snapshot in the ring to name them)".to_owned(),
        Some([]) => "none".to_owned(),
        Some(names) => names.join(", "),
    };
    let verdict = if ls == rs {
        format!(
            "the state hashes are equal and only the per-type part differs (in the buckets of: \
             {types}): both peers hold the same state at this tick, but they summarize its \
             component types differently, so their builds register or hash those types \
             differently (another game version, or another registration order); the session \
             ends because states that agree now would not stay comparable"
        )
    } else if lp == rp {
        "the state hashes differ and the per-type part is equal: the simulations diverged, \
         in the tick or the entity count, or in a type whose one-byte bucket happens to \
         match"
            .to_owned()
    } else {
        format!("the state hashes differ: the simulations diverged; differing components: {types}")
    };
    format!(
        "tick {tick}: checksum {local:#034x} here (state hash {ls:#018x}, per-type part \
         {lp:#018x}), {remote:#034x} at {addr} (state hash {rs:#018x}, per-type part \
         {rp:#018x}); {verdict}"
    )
}

/// The checksum GGRS exchanges: the state hash in the low 64 bits; in the
/// high 64 bits, 8 one-byte buckets of the per-type hashes (line `k` folds
/// into byte `k % 8`), so a peer that sees a desync can name the component
/// types whose hashes differ without another message.
pub(crate) fn checksum(state_hash: u64, snap: &WorldSnapshot) -> u128 {
    let mut buckets = [0_u8; 8];
    for line in 0..snap.type_count() {
        if let Some((_, h)) = snap.type_hash(line) {
            buckets[line % 8] ^= h.to_le_bytes()[0];
        }
    }
    u128::from(state_hash) | (u128::from(u64::from_le_bytes(buckets)) << 64)
}

/// The names of the per-type lines whose buckets differ between two
/// checksums (the dump breaks their values down to the field).
pub(crate) fn differing_lines(
    snap: &WorldSnapshot,
    local: u128,
    remote: u128,
) -> Vec<&'static str> {
    let (a, b) = (
        u64::try_from(local >> 64).unwrap_or(0).to_le_bytes(),
        u64::try_from(remote >> 64).unwrap_or(0).to_le_bytes(),
    );
    (0..snap.type_count())
        .filter(|line| a[line % 8] != b[line % 8])
        .filter_map(|line| snap.type_hash(line).map(|(name, _)| name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEER: &str = "127.0.0.1:7311";

    #[test]
    fn equal_state_hashes_say_only_the_per_type_part_differed() {
        let state = 0x4b19_a7e6_c2a2_8f14_u128;
        let (local, remote) = (state | (0x11_u128 << 64), state | (0x13_u128 << 64));
        let text = describe(336, (local, remote), &PEER, Some(&["demo.pilot"]));
        assert!(
            text.contains("checksum 0x00000000000000114b19a7e6c2a28f14 here"),
            "{text}"
        );
        assert!(
            text.contains("0x00000000000000134b19a7e6c2a28f14 at 127.0.0.1:7311"),
            "{text}"
        );
        assert!(text.contains("per-type part 0x0000000000000011"), "{text}");
        assert!(text.contains("per-type part 0x0000000000000013"), "{text}");
        assert!(text.contains("only the per-type part differs (in the buckets of: demo.pilot)"));
        assert!(text.contains("the same state"), "{text}");
    }

    #[test]
    fn differing_state_hashes_name_the_types_or_say_none_differ() {
        let text = describe(9, (1 | (5 << 64), 2 | (6 << 64)), &PEER, Some(&["a", "b"]));
        assert!(text.contains("state hash 0x0000000000000001"), "{text}");
        assert!(text.contains("state hash 0x0000000000000002"), "{text}");
        assert!(
            text.contains("diverged; differing components: a, b"),
            "{text}"
        );
        let text = describe(9, (1 | (5 << 64), 2 | (5 << 64)), &PEER, Some(&[]));
        assert!(text.contains("the per-type part is equal"), "{text}");
        let text = describe(9, (1, 2 | (1 << 64)), &PEER, None);
        assert!(text.contains("differing components: unknown"), "{text}");
    }
}
