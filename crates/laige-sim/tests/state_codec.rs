//! The value codec of encoded snapshots: `encode_state` writes exactly the
//! bytes `hash_state` hashes, `decode_state` reads them back, and bad
//! bytes (truncated, out-of-range tags, oversized counts) are errors,
//! never panics.

use laige_core::{Fp32Pinned, Fpx16_16, Vec2};
use laige_sim::{
    DecodeErrorKind, SimRng, StateHash, StateHasher, StateReader, StateWriter, decode_exact,
    hash_of, layout_hash,
};
use proptest::prelude::*;

#[derive(StateHash, Clone, Debug, PartialEq)]
enum Shape {
    Circle { r: Fpx16_16 },
    Boxed(Vec2<Fpx16_16>, bool),
    Empty,
}

#[derive(StateHash, Clone, Debug, PartialEq)]
struct Body<S> {
    pos: Vec2<S>,
    id: u32,
    signed: i16,
    wide: i128,
    count: usize,
    tag: char,
    shape: Option<Shape>,
    trail: Vec<(u8, i64)>,
    corners: [Shape; 2],
}

#[derive(StateHash, Clone, Debug, PartialEq)]
struct Unit;

#[derive(StateHash, Clone, Debug, PartialEq)]
struct Pair(u8, Fp32Pinned);

/// A hand-written impl without a decoder.
#[derive(Debug)]
struct Opaque(u32);

impl StateHash for Opaque {
    fn hash_state(&self, hasher: &mut StateHasher) {
        hasher.write_u32(self.0);
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        any::<i32>().prop_map(|r| Shape::Circle {
            r: Fpx16_16::from_raw(r)
        }),
        (any::<i32>(), any::<i32>(), any::<bool>()).prop_map(|(x, y, b)| Shape::Boxed(
            Vec2::new(Fpx16_16::from_raw(x), Fpx16_16::from_raw(y)),
            b
        )),
        Just(Shape::Empty),
    ]
}

fn body() -> impl Strategy<Value = Body<Fp32Pinned>> {
    (
        (any::<u32>(), any::<u32>()),
        any::<u32>(),
        any::<i16>(),
        any::<i128>(),
        0..=u32::MAX as usize,
        any::<char>(),
        proptest::option::of(shape()),
        proptest::collection::vec((any::<u8>(), any::<i64>()), 0..6),
        (shape(), shape()),
    )
        .prop_map(
            |((x, y), id, signed, wide, count, tag, shape, trail, (a, b))| Body {
                pos: Vec2::new(Fp32Pinned::from_bits(x), Fp32Pinned::from_bits(y)),
                id,
                signed,
                wide,
                count,
                tag,
                shape,
                trail,
                corners: [a, b],
            },
        )
}

fn encode<T: StateHash>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode_state(&mut StateWriter::new(&mut out));
    out
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h = StateHasher::default();
    h.write_bytes(bytes);
    h.finish()
}

proptest! {
    #[test]
    fn encoded_bytes_are_the_hashed_bytes_and_decode_back(b in body()) {
        let bytes = encode(&b);
        prop_assert_eq!(fnv(&bytes), hash_of(&b));
        let back: Body<Fp32Pinned> = decode_exact(&bytes).expect("decodes");
        // Pinned-float NaNs are canonical in the encoding: compare hashes,
        // which is the promise (the state hash of the decoded value).
        prop_assert_eq!(hash_of(&back), hash_of(&b));
        prop_assert_eq!(encode(&back), bytes);
    }

    #[test]
    fn every_strict_prefix_is_an_error(b in body()) {
        let bytes = encode(&b);
        for n in 0..bytes.len() {
            let r = decode_exact::<Body<Fp32Pinned>>(&bytes[..n]);
            prop_assert!(r.is_err(), "prefix of {} of {} bytes decoded", n, bytes.len());
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        // Either a value whose encoding is exactly these bytes, or an error.
        if let Ok(v) = decode_exact::<Body<Fp32Pinned>>(&bytes) {
            prop_assert_eq!(fnv(&bytes), hash_of(&v));
        }
    }
}

#[test]
fn out_of_range_tags_name_what_they_are() {
    let err = decode_exact::<bool>(&[2]).unwrap_err();
    assert!(matches!(
        err.kind,
        DecodeErrorKind::Invalid {
            what: "bool",
            value: 2,
            ..
        }
    ));
    let err = decode_exact::<Option<u8>>(&[7, 0]).unwrap_err();
    assert!(err.to_string().contains("Option tag"), "{err}");
    let err = decode_exact::<Shape>(&3_u32.to_le_bytes()).unwrap_err();
    assert!(err.to_string().contains("enum Shape"), "{err}");
    let err = decode_exact::<char>(&0xD800_u32.to_le_bytes()).unwrap_err();
    assert!(err.to_string().contains("char"), "{err}");
    let err = decode_exact::<SimRng>(&[0; 32]).unwrap_err();
    assert!(err.to_string().contains("SimRng"), "{err}");
    let err = decode_exact::<u8>(&[1, 2]).unwrap_err();
    assert!(err.to_string().contains("trailing"), "{err}");
}

#[test]
fn an_oversized_count_is_refused_before_anything_is_reserved() {
    let mut bytes = u64::MAX.to_le_bytes().to_vec();
    bytes.extend([0; 8]);
    let err = decode_exact::<Vec<u64>>(&bytes).unwrap_err();
    assert_eq!(err.offset, 0);
    assert!(err.to_string().contains("Vec length"), "{err}");
}

#[test]
fn units_tuples_and_generators_round_trip() {
    assert_eq!(encode(&Unit), Vec::<u8>::new());
    assert_eq!(decode_exact::<Unit>(&[]), Ok(Unit));
    let p = Pair(9, Fp32Pinned::from_bits(0x3f80_0000));
    assert_eq!(decode_exact::<Pair>(&encode(&p)), Ok(p));
    let mut rng = SimRng::new(42);
    let _ = rng.next_u64();
    let back: SimRng = decode_exact(&encode(&rng)).expect("decodes");
    assert_eq!(back.state(), rng.state());
}

#[test]
fn only_impls_with_a_codec_are_encodable() {
    const { assert!(<Body<Fpx16_16> as StateHash>::ENCODABLE) };
    const { assert!(!<Opaque as StateHash>::ENCODABLE) };
    const { assert!(!<(u8, Opaque) as StateHash>::ENCODABLE) };
    let err = decode_exact::<Opaque>(&[0; 4]).unwrap_err();
    assert!(matches!(err.kind, DecodeErrorKind::Unsupported { .. }));
    assert!(err.to_string().contains("Opaque"), "{err}");
    let _ = StateReader::new(&[]);
}

#[test]
fn layouts_differ_where_encodings_differ() {
    #[derive(StateHash)]
    struct A {
        x: u32,
    }
    mod renamed {
        use laige_sim::StateHash;
        #[derive(StateHash)]
        pub struct A {
            pub y: u32,
        }
    }
    mod widened {
        use laige_sim::StateHash;
        #[derive(StateHash)]
        pub struct A {
            pub x: u64,
        }
    }
    let a = layout_hash::<A>();
    assert_ne!(a, layout_hash::<renamed::A>());
    assert_ne!(a, layout_hash::<widened::A>());
    assert_ne!(
        layout_hash::<Body<Fpx16_16>>(),
        layout_hash::<Body<Fp32Pinned>>()
    );
    assert_eq!(a, layout_hash::<A>());
}

/// Every field with a fixed-size encoding: a column of it is written and
/// read in bulk (`write_fixed`, `read_fixed`).
#[derive(StateHash, Clone, Copy, Debug, PartialEq)]
struct Fixed {
    pos: Vec2<Fp32Pinned>,
    id: u32,
    flag: bool,
    tag: char,
    pair: (i8, u64),
    wide: i128,
    fx: Fpx16_16,
}

fn fixed() -> impl Strategy<Value = Fixed> {
    (
        (any::<u32>(), any::<u32>()),
        any::<u32>(),
        any::<bool>(),
        any::<char>(),
        (any::<i8>(), any::<u64>()),
        any::<i128>(),
        any::<i32>(),
    )
        .prop_map(|((x, y), id, flag, tag, pair, wide, fx)| Fixed {
            pos: Vec2::new(Fp32Pinned::from_bits(x), Fp32Pinned::from_bits(y)),
            id,
            flag,
            tag,
            pair,
            wide,
            fx: Fpx16_16::from_raw(fx),
        })
}

/// Reads `n` values one `decode_state` at a time (the reference of
/// `read_fixed`).
fn read_each<T: StateHash>(
    bytes: &[u8],
    n: usize,
) -> (Result<(), laige_sim::DecodeError>, Vec<T>, usize) {
    let mut r = StateReader::new(bytes);
    let mut out = Vec::new();
    for _ in 0..n {
        match T::decode_state(&mut r) {
            Ok(v) => out.push(v),
            Err(e) => return (Err(e), out, r.position()),
        }
    }
    (Ok(()), out, r.position())
}

fn read_bulk<T: StateHash>(
    bytes: &[u8],
    n: usize,
) -> (Result<(), laige_sim::DecodeError>, Vec<T>, usize) {
    let mut r = StateReader::new(bytes);
    let mut out = Vec::new();
    let res = r.read_fixed(n, &mut out);
    (res, out, r.position())
}

#[test]
fn fixed_sizes_are_the_encoded_lengths_where_every_value_has_one() {
    assert_eq!(Fixed::FIXED_SIZE, 8 + 4 + 1 + 4 + 9 + 16 + 4);
    assert_eq!(Pair::FIXED_SIZE, 5);
    assert_eq!(<Vec2<Fpx16_16>>::FIXED_SIZE, 8);
    assert_eq!(<(u16, bool)>::FIXED_SIZE, 3);
    // Lengths that vary (an enum, an Option, a Vec, a field of them) or
    // a type that does not say: no fixed size, read value by value.
    assert_eq!(Shape::FIXED_SIZE, 0);
    assert_eq!(<Body<Fpx16_16>>::FIXED_SIZE, 0);
    assert_eq!(<Option<u32>>::FIXED_SIZE, 0);
    assert_eq!(Unit::FIXED_SIZE, 0);
    assert_eq!(Opaque::FIXED_SIZE, 0);
    let nan = Fixed {
        pos: Vec2::new(
            Fp32Pinned::from_bits(0x7FC0_1234),
            Fp32Pinned::from_bits(0x8000_0000),
        ),
        id: 1,
        flag: true,
        tag: 'é',
        pair: (-1, u64::MAX),
        wide: -2,
        fx: Fpx16_16::from_raw(-3),
    };
    let mut bulk = Vec::new();
    StateWriter::new(&mut bulk).write_fixed(&[nan]);
    assert_eq!(bulk, encode(&nan), "a NaN is written canonical in bulk too");
}

proptest! {
    /// The bulk column path writes the bytes of `encode_state` value by
    /// value, and reads them back to the same values.
    #[test]
    fn bulk_columns_are_the_values_bytes(values in proptest::collection::vec(fixed(), 0..40)) {
        let mut bulk = Vec::new();
        StateWriter::new(&mut bulk).write_fixed(&values);
        let each: Vec<u8> = values.iter().flat_map(encode).collect();
        prop_assert_eq!(&bulk, &each);
        let (res, back, at) = read_bulk::<Fixed>(&bulk, values.len());
        prop_assert!(res.is_ok());
        prop_assert_eq!(at, bulk.len());
        prop_assert_eq!(back.iter().map(hash_of).collect::<Vec<_>>(), values.iter().map(hash_of).collect::<Vec<_>>());
    }

    /// On any bytes the bulk read gives what reading value by value
    /// gives: the same values, the same error at the same offset, the
    /// same position.
    #[test]
    fn bulk_reads_agree_with_value_by_value_reads(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        n in 0_usize..12,
    ) {
        let (a, va, pa) = read_each::<Fixed>(&bytes, n);
        let (b, vb, pb) = read_bulk::<Fixed>(&bytes, n);
        prop_assert_eq!(a, b);
        prop_assert_eq!(pa, pb);
        prop_assert_eq!(va.iter().map(hash_of).collect::<Vec<_>>(), vb.iter().map(hash_of).collect::<Vec<_>>());
        let (a, va, pa) = read_each::<(bool, u16)>(&bytes, n);
        let (b, vb, pb) = read_bulk::<(bool, u16)>(&bytes, n);
        prop_assert_eq!(a, b);
        prop_assert_eq!((va, pa), (vb, pb));
    }
}
