//! Property tests of the identities the op table states, asserting exactly what
//! holds for each backend: total order, saturation without wrapping,
//! normalize of zero, the lerp endpoints, commutativity, text round trip.

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2, Vec3};
use proptest::prelude::*;

fn fx(raw: i32) -> Fpx16_16 {
    Fpx16_16::from_raw(raw)
}

fn fp(bits: u32) -> Fp32Pinned {
    Fp32Pinned::from_bits(bits)
}

/// Raw values with the range ends and small values over-represented.
fn raw() -> impl Strategy<Value = i32> {
    prop_oneof![
        4 => any::<i32>(),
        2 => -0x4_0000..0x4_0000i32,
        1 => prop::sample::select(vec![i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX]),
    ]
}

/// Finite binary32 values of moderate and extreme magnitudes.
fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => -1.0e4f32..1.0e4,
        1 => any::<f32>().prop_filter("finite", |v| v.is_finite()),
    ]
}

/// The exact rounding error of `x + y` in binary32 (Knuth's TwoSum; no
/// FMA, no wider type): zero iff the sum is exact.
fn two_sum_error(x: f32, y: f32) -> f32 {
    let s = x + y;
    let xp = s - y;
    let yp = s - xp;
    (x - xp) + (y - yp)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn fixed_order_is_total_and_matches_the_raw_order(a in raw(), b in raw(), c in raw()) {
        let (x, y, z) = (fx(a), fx(b), fx(c));
        prop_assert_eq!(x.cmp(&y), a.cmp(&b));
        prop_assert_eq!(x.partial_cmp(&y), Some(a.cmp(&b)));
        prop_assert_eq!(x == y, a == b);
        prop_assert_eq!(x.lt(y), a < b);
        prop_assert_eq!(x.equals(y), !x.not_equals(y));
        if x <= y && y <= z {
            prop_assert!(x <= z);
        }
        prop_assert!(x.is_ordered(y));
    }

    #[test]
    fn fixed_saturation_never_wraps(a in raw(), b in raw()) {
        let (x, y) = (fx(a), fx(b));
        let exact_sum = i64::from(a) + i64::from(b);
        prop_assert_eq!(i64::from((x + y).to_raw()), exact_sum.clamp(i32::MIN.into(), i32::MAX.into()));
        let exact_diff = i64::from(a) - i64::from(b);
        prop_assert_eq!(i64::from((x - y).to_raw()), exact_diff.clamp(i32::MIN.into(), i32::MAX.into()));
        // The product and quotient never take the wrong sign.
        let p = (x * y).to_raw();
        let sign = i64::from(a).signum() * i64::from(b).signum();
        prop_assert!(p == 0 || i64::from(p.signum()) == sign, "{a} * {b} = {p}");
        let q = (x / y).to_raw();
        if b != 0 {
            prop_assert!(q == 0 || i64::from(q.signum()) == sign, "{a} / {b} = {q}");
        }
        // Saturated results sit exactly at the bounds.
        if exact_sum > i64::from(i32::MAX) {
            prop_assert_eq!(x + y, Fpx16_16::MAX);
        }
        if exact_sum < i64::from(i32::MIN) {
            prop_assert_eq!(x + y, Fpx16_16::MIN);
        }
        prop_assert!((-x).to_raw() == i32::MAX || (-x).to_raw() == a.wrapping_neg());
        prop_assert!(x.abs() >= Fpx16_16::ZERO);
    }

    #[test]
    fn fixed_add_and_mul_commute(a in raw(), b in raw()) {
        prop_assert_eq!(fx(a) + fx(b), fx(b) + fx(a));
        prop_assert_eq!(fx(a) * fx(b), fx(b) * fx(a));
    }

    #[test]
    fn pinned_add_and_mul_commute(a in any::<u32>(), b in any::<u32>()) {
        let (x, y) = (fp(a), fp(b));
        prop_assert_eq!((x + y).to_hash_bits(), (y + x).to_hash_bits());
        prop_assert_eq!((x * y).to_hash_bits(), (y * x).to_hash_bits());
    }

    #[test]
    fn fixed_lerp_endpoints(a in raw(), b in raw()) {
        let (x, y) = (fx(a), fx(b));
        // t = 0: a + (b − a)·0 = a + 0 = a, always.
        prop_assert_eq!(x.lerp(y, Fpx16_16::ZERO), x);
        // t = 1: a + (b − a) = b exactly when b − a does not saturate.
        let diff = i64::from(b) - i64::from(a);
        let fits = i32::try_from(diff).is_ok();
        prop_assert_eq!(x.lerp(y, Fpx16_16::ONE) == y, fits || x + (y - x) == y);
        if fits {
            prop_assert_eq!(x.lerp(y, Fpx16_16::ONE), y);
        }
        prop_assert_eq!(Vec2::splat(x).lerp(Vec2::splat(y), Fpx16_16::ZERO), Vec2::splat(x));
    }

    #[test]
    fn pinned_lerp_endpoints(a in finite(), b in finite()) {
        let (x, y) = (Fp32Pinned::from_f32(a), Fp32Pinned::from_f32(b));
        let d = b - a;
        if d.is_finite() {
            // t = 0: a + (b − a)·0 = a + (±0), numerically a.
            prop_assert!(x.lerp(y, Fp32Pinned::ZERO) == x);
            // t = 1: a + (b − a) is b when b − a is exact (then the sum is
            // exactly b); otherwise it may differ by the rounding of b − a.
            let exact = two_sum_error(b, -a) == 0.0;
            if exact {
                prop_assert!(x.lerp(y, Fp32Pinned::ONE) == y);
            }
        }
    }

    #[test]
    fn normalize_of_zero_is_zero_and_never_nan(a in raw(), b in raw(), c in raw()) {
        prop_assert_eq!(Vec2::<Fpx16_16>::ZERO.normalize(), Vec2::ZERO);
        prop_assert_eq!(Vec3::<Fpx16_16>::ZERO.normalize_wide(), Vec3::ZERO);
        let p2 = Vec2::<Fp32Pinned>::ZERO.normalize();
        prop_assert!(p2.x.to_bits() == 0 && p2.y.to_bits() == 0);
        let p3 = Vec3::<Fp32Pinned>::ZERO.normalize_wide();
        prop_assert!(!p3.x.is_nan() && p3.equals(Vec3::ZERO));
        // A non-zero vector normalizes (wide) to length 1 within rounding:
        // each component is off by at most half a raw step, so the squared
        // length is within a few raw steps of one.
        let v = Vec3::new(fx(a), fx(b), fx(c));
        if v != Vec3::ZERO {
            let n = v.normalize_wide();
            let len = n.length_wide().to_raw();
            prop_assert!((len - 0x1_0000).abs() <= 2, "{v:?} -> {n:?}, length {len}");
        }
    }

    #[test]
    fn fixed_text_round_trips(a in raw()) {
        let x = fx(a);
        let text = x.to_string();
        prop_assert_eq!(text.parse::<Fpx16_16>().ok(), Some(x));
        prop_assert!(text.len() <= 12, "{}", text);
        let exact = format!("{x:.16}");
        prop_assert_eq!(exact.parse::<Fpx16_16>().ok(), Some(x));
    }

    #[test]
    fn fixed_sqrt_is_monotone_and_non_negative(a in raw(), b in raw()) {
        let (x, y) = (fx(a.min(b)), fx(a.max(b)));
        prop_assert!(x.sqrt() <= y.sqrt());
        prop_assert!(x.sqrt() >= Fpx16_16::ZERO);
    }

    #[test]
    fn wide_length_is_never_below_the_plain_length(a in raw(), b in raw()) {
        // The plain path saturates and rounds each square, the wide path
        // is exact: the plain length can only fall short by rounding.
        let v = Vec2::new(fx(a), fx(b));
        prop_assert!(i64::from(v.length().to_raw()) <= i64::from(v.length_wide().to_raw()) + 256);
        prop_assert_eq!(v.distance_wide(Vec2::ZERO), v.length_wide());
    }

    #[test]
    fn pinned_clamp_policy(v in any::<u32>()) {
        let (lo, hi) = (Fp32Pinned::from_f32(-1.0), Fp32Pinned::from_f32(1.0));
        let x = fp(v);
        let c = x.clamp(lo, hi);
        if x.is_nan() {
            prop_assert!(c.is_nan());
        } else {
            prop_assert!(c >= lo && c <= hi);
        }
    }
}

#[test]
fn generic_code_sees_the_same_identities_on_both_backends() {
    fn check<S: SimScalar>() {
        let (two, three) = (S::from_i32(2), S::from_i32(3));
        assert!((two + three).equals(S::from_i32(5)));
        assert!(two.lerp(three, S::ZERO).equals(two));
        assert!(two.lerp(three, S::ONE).equals(three));
        assert!(Vec2::<S>::ZERO.normalize().equals(Vec2::ZERO));
        assert!(S::from_i32(4).sqrt().equals(two));
    }
    check::<Fpx16_16>();
    check::<Fp32Pinned>();
}
