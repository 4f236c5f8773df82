//! Damaged replay files are clear errors, never panics: a file cut at
//! every byte offset yields its valid prefix and names the torn tail;
//! every single-bit flip is detected; wrong versions, unknown backends and
//! malformed records name the failed check; random bytes never panic.

use laige_core::{ErrorCode, MathBackend};
use laige_sim::events;
use laige_sim::replay::{Record, Replay, ReplayHeader, ReplayRecorder};
use proptest::prelude::*;

/// A small, complete replay: 4 ticks of 0..=3 input bytes, a hash at
/// every tick count. Also returns the byte offset where each record ends.
fn small_file() -> (Vec<u8>, Vec<usize>) {
    let mut header = ReplayHeader::new(MathBackend::FixedPoint16_16, 9, 0xabcd);
    header.engine_version = "0.1.0".to_owned();
    let mut rec = ReplayRecorder::new(Vec::new(), header).unwrap();
    let mut ends = vec![rec.get_ref().len()];
    rec.record_hash(0, 100).unwrap();
    ends.push(rec.get_ref().len());
    for t in 0..4_u64 {
        let input: Vec<u8> = (0..t).map(|b| b as u8 * 7).collect();
        rec.record_input_bytes(t, &input).unwrap();
        ends.push(rec.get_ref().len());
        rec.record_hash(t + 1, 100 + t + 1).unwrap();
        ends.push(rec.get_ref().len());
    }
    let bytes = rec.finish().unwrap();
    ends.push(bytes.len());
    (bytes, ends)
}

#[test]
fn a_cut_at_every_offset_keeps_the_valid_prefix() {
    let (bytes, ends) = small_file();
    let header_len = ends[0];
    for cut in 0..=bytes.len() {
        let torn = &bytes[..cut];
        let strict = Replay::parse(torn);
        let prefix = Replay::parse_prefix(torn);
        if cut < header_len {
            let e = prefix.unwrap_err();
            assert_eq!(e.code(), ErrorCode::Corrupt, "cut {cut}");
            assert_eq!(e.id(), events::CORRUPT, "cut {cut}: {e}");
            assert!(strict.is_err());
            continue;
        }
        let p = prefix.unwrap_or_else(|e| panic!("cut {cut}: {e}"));
        // The records that end at or before the cut survive, in full.
        let whole = ends.iter().filter(|&&e| e <= cut).count() - 1;
        assert_eq!(p.replay.records().len(), whole, "cut {cut}");
        if cut == bytes.len() {
            assert!(p.damage.is_none());
            assert!(p.replay.is_complete());
            assert!(strict.is_ok());
            continue;
        }
        let damage = p
            .damage
            .unwrap_or_else(|| panic!("cut {cut}: no damage flagged"));
        assert_eq!(damage.code(), ErrorCode::Corrupt);
        let expected_field = if ends.contains(&cut) {
            "end_record"
        } else {
            "record"
        };
        assert_eq!(damage.field(), Some(expected_field), "cut {cut}: {damage}");
        assert!(
            damage
                .detail()
                .unwrap()
                .contains(&format!("byte offset {}", {
                    ends.iter().rev().find(|&&e| e <= cut).unwrap()
                })),
            "cut {cut}: {damage}"
        );
        assert!(!p.replay.is_complete());
        let strict = strict.unwrap_err();
        assert_eq!(strict.to_string(), damage.to_string());
        // The prefix is playable: its inputs are intact.
        for t in 0..p.replay.ticks() {
            assert_eq!(p.replay.input(t).unwrap().len() as u64, t);
        }
    }
}

#[test]
fn every_single_bit_flip_is_detected() {
    let (bytes, _) = small_file();
    for i in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            let e = Replay::parse(&b)
                .err()
                .unwrap_or_else(|| panic!("flip at byte {i} bit {bit} went unnoticed"));
            assert_eq!(e.code(), ErrorCode::Corrupt, "byte {i} bit {bit}: {e}");
        }
    }
}

#[test]
fn a_flipped_byte_mid_file_keeps_the_records_before_it() {
    let (bytes, ends) = small_file();
    // Damage the payload of tick 3's input (the 8th record).
    let at = ends[7] + 14;
    let mut b = bytes.clone();
    b[at] ^= 0xff;
    let p = Replay::parse_prefix(&b).unwrap();
    assert_eq!(p.replay.ticks(), 3);
    let e = p.damage.unwrap();
    assert_eq!(e.field(), Some("record_crc"));
    assert!(e.detail().unwrap().contains("after tick 2's input"), "{e}");
    insta::assert_snapshot!("record_crc", e.to_string());
}

#[test]
fn another_format_version_is_refused_by_name() {
    let (mut bytes, _) = small_file();
    bytes[8] = 4;
    let e = Replay::parse(&bytes).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Corrupt);
    assert_eq!(e.id(), events::VERSION_UNSUPPORTED);
    assert_eq!(e.field(), Some("version"));
    insta::assert_snapshot!("version", e.to_string());
}

#[test]
fn a_foreign_file_is_not_a_replay() {
    let e = Replay::parse(b"PK\x03\x04 this is a zip file, not a replay").unwrap_err();
    assert_eq!(e.field(), Some("magic"));
    insta::assert_snapshot!("magic", e.to_string());
    let e = Replay::parse(b"").unwrap_err();
    assert_eq!(e.field(), Some("header"));
    insta::assert_snapshot!("empty", e.to_string());
}

/// Re-seals a header whose bytes were edited (so only the edit is wrong).
fn reseal_header(bytes: &mut [u8], header_len: usize) {
    let body = header_len - 4;
    let crc = crc32(&bytes[..body]);
    bytes[body..header_len].copy_from_slice(&crc.to_le_bytes());
}

/// The CRC-32 of the docs (replay.md), independently written.
fn crc32(data: &[u8]) -> u32 {
    let mut c = 0xffff_ffff_u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                (c >> 1) ^ 0xedb8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

#[test]
fn an_unknown_backend_with_a_valid_crc_is_named() {
    let (mut bytes, ends) = small_file();
    // "fixed_point_16_16" → "fixed_point_16_17"
    bytes[11 + 16] = b'7';
    reseal_header(&mut bytes, ends[0]);
    let e = Replay::parse(&bytes).unwrap_err();
    assert_eq!(e.field(), Some("backend"));
    insta::assert_snapshot!("backend", e.to_string());
}

/// Appends a record the way the recorder frames it.
fn push_record(out: &mut Vec<u8>, kind: u8, tick: u64, payload: &[u8]) {
    let start = out.len();
    out.push(kind);
    out.extend_from_slice(&tick.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

fn header_only() -> Vec<u8> {
    let (bytes, ends) = small_file();
    bytes[..ends[0]].to_vec()
}

#[test]
fn well_framed_but_wrong_records_name_the_check() {
    type Framed = (u8, u64, Vec<u8>);
    let h0 = || (2, 0, vec![0; 8]);
    let cases: Vec<(&str, Vec<Framed>)> = vec![
        ("record_kind", vec![(9, 0, vec![])]),
        ("tick", vec![h0(), (1, 0, vec![]), (1, 2, vec![])]),
        ("hash_tick", vec![h0(), (1, 0, vec![]), (2, 0, vec![0; 8])]),
        ("hash_tick", vec![h0(), (2, 0, vec![0; 8])]),
        ("payload_length", vec![(2, 0, vec![0; 7])]),
        ("payload_length", vec![h0(), (3, 0, vec![1])]),
        ("end_tick", vec![h0(), (1, 0, vec![]), (3, 0, vec![])]),
        ("trailing_bytes", vec![h0(), (3, 0, vec![]), (1, 0, vec![])]),
        // The header's interval (1) promises a hash after every tick.
        ("hash_missing", vec![(1, 0, vec![])]),
        ("hash_missing", vec![h0(), (1, 0, vec![]), (1, 1, vec![])]),
        ("hash_missing", vec![h0(), (1, 0, vec![]), (3, 1, vec![])]),
    ];
    for (field, records) in cases {
        let mut b = header_only();
        for (kind, tick, payload) in &records {
            push_record(&mut b, *kind, *tick, payload);
        }
        let e = Replay::parse(&b).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Corrupt);
        assert_eq!(e.field(), Some(field), "{records:?}: {e}");
    }
}

#[test]
fn a_huge_length_field_is_refused_without_allocating_it() {
    let mut b = header_only();
    b.push(1);
    b.extend_from_slice(&0_u64.to_le_bytes());
    b.extend_from_slice(&u32::MAX.to_le_bytes());
    b.extend_from_slice(&[0; 8]);
    let e = Replay::parse(&b).unwrap_err();
    assert_eq!(e.field(), Some("payload_length"));
}

#[test]
fn records_read_back_in_file_order() {
    let (bytes, _) = small_file();
    let r = Replay::parse(&bytes).unwrap();
    let records: Vec<Record<'_>> = r.records().collect();
    assert_eq!(records[0], Record::Hash { tick: 0, hash: 100 });
    assert_eq!(
        records[1],
        Record::Input {
            tick: 0,
            payload: &[]
        }
    );
    assert_eq!(*records.last().unwrap(), Record::End { ticks: 4 });
    assert_eq!(r.input(3), Some(&[0_u8, 7, 14][..]));
    assert_eq!(r.input(4), None);
    let e = r.input_as::<Vec<u8>>(4).unwrap_err();
    assert_eq!(e.id(), events::TICK_OUT_OF_RANGE);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = Replay::parse(&bytes);
        let _ = Replay::parse_prefix(&bytes);
    }

    #[test]
    fn random_bytes_after_a_valid_header_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut b = header_only();
        b.extend_from_slice(&tail);
        let p = Replay::parse_prefix(&b).unwrap();
        // Random bytes almost never form a CRC-valid record; either way the
        // prefix is consistent with what was accepted.
        prop_assert_eq!(p.damage.is_none(), p.replay.is_complete());
    }

    #[test]
    fn random_edits_of_a_valid_file_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let (mut b, _) = small_file();
        let original = b.clone();
        for (at, v) in edits {
            let i = at % b.len();
            b[i] = v;
        }
        b.truncate(cut % (b.len() + 1));
        match Replay::parse(&b) {
            Ok(r) => {
                // Only an unchanged file parses intact.
                prop_assert_eq!(&b, &original);
                prop_assert!(r.is_complete());
            }
            Err(e) => prop_assert_eq!(e.code(), ErrorCode::Corrupt),
        }
    }
}
