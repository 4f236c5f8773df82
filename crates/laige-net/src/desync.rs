//! Desync reporting: the checksum GGRS exchanges carries per-type hash
//! buckets, so a peer that sees a mismatch can name the differing
//! component types without another message.

use std::fmt::Display;

use laige_core::event;
use laige_sim::snapshot::WorldSnapshot;

use crate::events;
use crate::outcome::NetEnd;

/// The end of a P2P session whose checksums differ at `tick`: the report
/// names the component types whose per-type hashes differ (from `snap`,
/// the tick's snapshot if the ring still holds it), and the snapshot is
/// dumped to `{dump_prefix}-tick{N}.txt` (only the differing types'
/// lines, broken down to the field) when a prefix is set.
#[cold]
pub(crate) fn report(
    snap: Option<&WorldSnapshot>,
    tick: u64,
    (local, remote): (u128, u128),
    addr: &dyn Display,
    dump_prefix: Option<&str>,
) -> NetEnd {
    let components = snap.map_or_else(
        || "unknown (the tick's snapshot is no longer in the ring)".to_owned(),
        |s| differing_types(s, local, remote),
    );
    let mut report = format!(
        "tick {tick}: state hash {:#018x} here, {:#018x} at {addr}; differing components: {components}",
        // The low 64 bits are the state hash (see `checksum`).
        local as u64,
        remote as u64
    );
    if let (Some(prefix), Some(s)) = (dump_prefix, snap) {
        let path = format!("{prefix}-tick{tick}.txt");
        let lines = differing_lines(s, local, remote);
        let dump = s.dump_fields(|name, _| lines.contains(&name));
        match std::fs::write(&path, dump) {
            Ok(()) => report.push_str(&format!("; snapshot dumped to {path}")),
            Err(e) => report.push_str(&format!("; dump to {path} failed: {e}")),
        }
    }
    event!(
        Error,
        events::DESYNC,
        tick,
        peer = %addr,
        components = components.as_str()
    );
    NetEnd::Desync { tick, report }
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

/// The per-type hash lines whose buckets differ between two checksums.
pub(crate) fn differing_types(snap: &WorldSnapshot, local: u128, remote: u128) -> String {
    let names = differing_lines(snap, local, remote);
    if names.is_empty() {
        "no per-type hash differs (the difference is in the tick or the entity count)".to_owned()
    } else {
        names.join(", ")
    }
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
