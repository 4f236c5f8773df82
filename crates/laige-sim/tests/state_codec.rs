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
