//! [`Fpx16_16`] as decimal text: `Display`/`Debug` (the shortest decimal
//! that parses back to the same raw value), `FromStr` (exact decimal
//! parsing, ties to even), and serde behind the `serde` feature.

use std::fmt;
use std::str::FromStr;

use super::fixed::Fpx16_16;
use crate::Error;
use crate::events::{PARSE_INVALID, PARSE_OUT_OF_RANGE};

/// What `FromStr` accepts, quoted in every parse error.
const ACCEPTED_TEXT: &str = "decimal text: an optional sign, digits, an optional '.' and \
     fraction digits (e.g. \"42\", \"-1.5\", \".25\"); no spaces, exponent or underscores";
/// The accepted range, quoted in out-of-range errors.
const ACCEPTED_RANGE: &str =
    "-32768 ..= 32767.9999847412109375 after rounding to the nearest 2^-16";

const POW10: [u64; 20] = {
    let mut t = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// A small stack buffer for rendering (no allocation).
struct DecBuf {
    bytes: [u8; 64],
    len: usize,
}

impl DecBuf {
    fn new() -> Self {
        Self {
            bytes: [0; 64],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) {
        // Capacity: 5 integer digits + '.' + at most 40 fraction digits.
        if self.len < self.bytes.len() {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }

    /// Appends `v` as exactly `width` digits (zero-padded), or all its
    /// digits when `width` is 0.
    fn push_digits(&mut self, v: u64, width: usize) {
        let mut tmp = [0u8; 20];
        let mut n = 0;
        let mut x = v;
        loop {
            tmp[n] = b'0' + (x % 10) as u8;
            n += 1;
            x /= 10;
            if x == 0 && n >= width {
                break;
            }
        }
        while n > 0 {
            n -= 1;
            self.push(tmp[n]);
        }
    }

    fn as_str(&self) -> &str {
        // Only ASCII digits and '.' are ever pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

/// Rounds the 16-bit fraction `frac / 2^16` to `digits` decimal places:
/// `round(frac × 10^digits / 2^16)`, ties to even (`digits <= 16`, so the
/// product is exact in `u128`).
fn round_frac(frac: u64, digits: usize) -> u64 {
    let p = frac as u128 * POW10[digits] as u128;
    let q = p >> 16;
    let rem = p & 0xFFFF;
    let up = rem > 0x8000 || (rem == 0x8000 && q & 1 == 1);
    (q + up as u128) as u64
}

/// Whether the decimal `c / 10^digits` parses back to the fraction `frac`
/// (no tie is possible for `digits <= 5`: see `render_shortest`).
fn parses_back(c: u64, digits: usize, frac: u64) -> bool {
    let p = (c as u128) << 16;
    let d = POW10[digits] as u128;
    let q = p / d;
    let rem = p % d;
    let rounded = if 2 * rem >= d { q + 1 } else { q };
    rounded == frac as u128
}

/// The shortest decimal that parses back to the magnitude `mag` (raw,
/// `<= 2^31`); among several of that length, the nearest to the exact value.
fn render_shortest(mag: u64, out: &mut DecBuf) {
    let int = mag >> 16;
    let frac = mag & 0xFFFF;
    out.push_digits(int, 0);
    if frac == 0 {
        return;
    }
    // One raw step (2^-16 ≈ 1.53e-5) is wider than 1e-5, so five digits
    // always suffice. The value rounding interval is symmetric about the
    // exact value, so the nearest candidate of each length is the only one
    // that can parse back; and no candidate of <= 5 digits is ever an exact
    // tie (c × 2^17 = odd × 10^n has no solution for n <= 5).
    for (digits, &scale) in POW10.iter().enumerate().take(6).skip(1) {
        let c = round_frac(frac, digits);
        if c < scale && parses_back(c, digits, frac) {
            out.push(b'.');
            out.push_digits(c, digits);
            return;
        }
    }
    // Unreachable by the argument above; the exact value is a safe answer.
    out.push(b'.');
    out.push_digits(round_frac(frac, 16), 16);
}

/// The exact value rounded to `precision` fraction digits, ties to even.
fn render_fixed(mag: u64, precision: usize, out: &mut DecBuf) {
    // 16 digits represent every Q16.16 value exactly; more are zeros.
    let exact_digits = precision.min(16);
    // round(mag × 10^d / 2^16) over the whole magnitude, so the tie looks
    // at the parity of the last printed digit (the integer's when d = 0).
    // mag × 10^16 < 2^85: exact in u128.
    let p = mag as u128 * POW10[exact_digits] as u128;
    let q = p >> 16;
    let rem = p & 0xFFFF;
    let up = rem > 0x8000 || (rem == 0x8000 && q & 1 == 1);
    let q = q + up as u128;
    let scale = POW10[exact_digits] as u128;
    out.push_digits((q / scale) as u64, 0);
    if precision > 0 {
        out.push(b'.');
        if exact_digits > 0 {
            out.push_digits((q % scale) as u64, exact_digits);
        }
        for _ in exact_digits..precision.min(40) {
            out.push(b'0');
        }
    }
}

/// `Display` renders the value in decimal: by default the **shortest**
/// decimal that parses back (with [`FromStr`]) to exactly the same raw
/// value — at most five fraction digits, no exponent, no trailing zeros,
/// integers without a point (`"1.5"`, `"-0.25"`, `"3"`, `"32767.99998"`).
/// With a precision (`{:.3}`) it renders the exact value rounded to that
/// many digits, ties to even (16 digits are exact; up to 40 are honored).
/// Width, fill, alignment, `+` and `0` flags work as for integers.
///
/// ```
/// use laige_core::Fpx16_16;
/// let x: Fpx16_16 = "0.1".parse()?;
/// assert_eq!(x.to_string(), "0.1");
/// assert_eq!(format!("{x:.16}"), "0.1000061035156250");
/// assert_eq!(format!("{:>6}", Fpx16_16::ONE), "     1");
/// assert_eq!(Fpx16_16::MIN.to_string(), "-32768");
/// # Ok::<(), laige_core::Error>(())
/// ```
impl fmt::Display for Fpx16_16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let raw = self.to_raw();
        let mag = raw.unsigned_abs() as u64;
        let mut buf = DecBuf::new();
        match f.precision() {
            Some(p) => render_fixed(mag, p, &mut buf),
            None => render_shortest(mag, &mut buf),
        }
        f.pad_integral(raw >= 0, "", buf.as_str())
    }
}

/// `Debug` is the same decimal text as `Display` (so assertion failures
/// read as values).
impl fmt::Debug for Fpx16_16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn invalid(text: &str, detail: String) -> Error {
    Error::invalid_argument(
        PARSE_INVALID,
        "fpx16_16",
        Error::quoted(text),
        ACCEPTED_TEXT,
    )
    .with_detail(detail)
}

/// Parses decimal text **exactly**: the decimal value is rounded once to
/// the nearest multiple of 2^−16, ties to even (any number of digits is
/// honored; a tie is only possible with 17 or fewer fraction digits).
///
/// Accepted: an optional `+`/`-`, then digits with an optional `.` and
/// fraction digits, at least one digit in all (`"42"`, `"-1.5"`, `".25"`,
/// `"7."`). Rejected with [`ErrorCode::InvalidArgument`](crate::ErrorCode)
/// (`math/parse_invalid`): empty text, spaces, exponents, underscores,
/// `inf`/`nan`, any other character. **Out-of-range values are rejected,
/// not saturated** — a config typo should not silently become `MAX` —
/// with [`ErrorCode::OutOfRange`](crate::ErrorCode) (`math/parse_out_of_range`)
/// when the rounded value is outside `[−32768, 32767.9999847412109375]`.
///
/// ```
/// use laige_core::Fpx16_16;
/// assert_eq!("1.5".parse::<Fpx16_16>()?.to_raw(), 0x1_8000);
/// // 2^-17 exactly: the tie between raw 0 and raw 1 rounds to even (0).
/// assert_eq!("0.00000762939453125".parse::<Fpx16_16>()?.to_raw(), 0);
/// assert_eq!("0.00000762939453126".parse::<Fpx16_16>()?.to_raw(), 1);
/// let err = "1,5".parse::<Fpx16_16>().unwrap_err();
/// assert!(err.to_string().contains("\"1,5\""));
/// assert!("40000".parse::<Fpx16_16>().is_err());
/// # Ok::<(), laige_core::Error>(())
/// ```
impl FromStr for Fpx16_16 {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let bytes = text.as_bytes();
        let (neg, body) = match bytes.first() {
            Some(b'-') => (true, &bytes[1..]),
            Some(b'+') => (false, &bytes[1..]),
            _ => (false, bytes),
        };
        let point = body.iter().position(|&b| b == b'.');
        let (int_digits, frac_digits) = match point {
            Some(i) => (&body[..i], &body[i + 1..]),
            None => (body, &body[body.len()..]),
        };
        if int_digits.is_empty() && frac_digits.is_empty() {
            return Err(invalid(text, "no digits".to_owned()));
        }
        let sign_len = bytes.len() - body.len();
        for (i, &b) in body.iter().enumerate() {
            if !b.is_ascii_digit() && Some(i) != point {
                let offset = sign_len + i;
                let ch = text[offset..].chars().next().unwrap_or('?');
                return Err(invalid(text, format!("unexpected {ch:?} at byte {offset}")));
            }
        }

        // Integer part: anything above 32768 is out of range whatever the
        // fraction, so accumulation stops there (no overflow).
        let mut int: u64 = 0;
        for &d in int_digits {
            int = (int * 10 + u64::from(d - b'0')).min(1 << 20);
        }

        // Fraction: floor(F × 2^17) and whether F × 2^17 is an integer,
        // from the first 18 digits plus a sticky flag for the rest. With
        // D = the 18-digit prefix, D × 2^17 / 10^18 is either an integer
        // or at least 2^17 / 10^18 below the next one, while the dropped
        // digits add less than 2^17 / 10^18: the floor is the same, and
        // the value is an integer only if nothing was dropped.
        let mut prefix: u64 = 0;
        let mut sticky = false;
        for (i, &d) in frac_digits.iter().enumerate() {
            if i < 18 {
                prefix = prefix * 10 + u64::from(d - b'0');
            } else if d != b'0' {
                sticky = true;
            }
        }
        let kept = frac_digits.len().min(18);
        prefix *= POW10[18 - kept];
        let scaled = (prefix as u128) << 17;
        let floor17 = (scaled / POW10[18] as u128) as u64; // < 2^17
        let exact17 = scaled.is_multiple_of(POW10[18] as u128) && !sticky;
        // F × 2^16 = floor17 / 2: the guard bit is floor17's low bit.
        let q = floor17 >> 1;
        let guard = floor17 & 1 == 1;
        let round_up = guard && (!exact17 || q & 1 == 1);
        let mag = (int << 16) + q + u64::from(round_up);

        let limit = if neg { 1u64 << 31 } else { i32::MAX as u64 };
        if mag > limit {
            return Err(Error::out_of_range(
                PARSE_OUT_OF_RANGE,
                "fpx16_16",
                Error::quoted(text),
                ACCEPTED_RANGE,
            )
            .with_detail("the value is outside the Q16.16 range"));
        }
        let raw = if neg {
            (mag as i64).wrapping_neg() as i32
        } else {
            mag as i32
        };
        Ok(Self::from_raw(raw))
    }
}

impl TryFrom<&str> for Fpx16_16 {
    type Error = Error;

    fn try_from(text: &str) -> Result<Self, Error> {
        text.parse()
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Fpx16_16;

    /// Serialized as its shortest round-trip decimal text (`"1.5"`), which
    /// parses back to the same raw value.
    impl Serialize for Fpx16_16 {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }

    /// Deserialized from decimal text (exact, [`FromStr`](std::str::FromStr)
    /// rules), from an integer (must be in `-32768..=32767`), or from a
    /// float (rounded once with [`Fpx16_16::from_f64`]'s rules; must be
    /// finite and in range). Text is the exact form: a float has already
    /// been rounded to binary64 by the format's parser.
    impl<'de> Deserialize<'de> for Fpx16_16 {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(FixedVisitor)
        }
    }

    struct FixedVisitor;

    impl Visitor<'_> for FixedVisitor {
        type Value = Fpx16_16;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a Q16.16 value: decimal text such as \"1.5\", an integer or a float")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Fpx16_16, E> {
            v.parse().map_err(E::custom)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Fpx16_16, E> {
            if (-32768..=32767).contains(&v) {
                Ok(Fpx16_16::from_i32(v as i32))
            } else {
                Err(E::invalid_value(
                    de::Unexpected::Signed(v),
                    &"an integer in -32768..=32767",
                ))
            }
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Fpx16_16, E> {
            if v <= 32767 {
                Ok(Fpx16_16::from_i32(v as i32))
            } else {
                Err(E::invalid_value(
                    de::Unexpected::Unsigned(v),
                    &"an integer in -32768..=32767",
                ))
            }
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Fpx16_16, E> {
            // The rounding ties at either end: −32768 − 2^−17 rounds to even,
            // onto MIN (accepted); 32768 − 2^−17 rounds to even, onto 2^31,
            // past MAX (rejected, as FromStr rejects it).
            const LOWEST: f64 = -32768.0 - 1.0 / 131_072.0;
            const ABOVE_HIGHEST: f64 = 32768.0 - 1.0 / 131_072.0;
            if (LOWEST..ABOVE_HIGHEST).contains(&v) {
                Ok(Fpx16_16::from_f64(v))
            } else {
                Err(E::invalid_value(
                    de::Unexpected::Float(v),
                    &"a finite value in -32768 ..= 32767.9999847412109375 after rounding",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(raw: i32) -> Fpx16_16 {
        Fpx16_16::from_raw(raw)
    }

    fn parse(text: &str) -> Fpx16_16 {
        match text.parse() {
            Ok(v) => v,
            Err(e) => panic!("{text:?} should parse: {e}"),
        }
    }

    #[test]
    fn displays_the_shortest_round_trip_decimal() {
        assert_eq!(Fpx16_16::ZERO.to_string(), "0");
        assert_eq!(Fpx16_16::ONE.to_string(), "1");
        assert_eq!(r(-0x1_8000).to_string(), "-1.5");
        assert_eq!(r(0x4000).to_string(), "0.25");
        assert_eq!(r(-0x4000).to_string(), "-0.25");
        assert_eq!(Fpx16_16::EPSILON.to_string(), "0.00002");
        assert_eq!(r(-1).to_string(), "-0.00002");
        assert_eq!(r(2).to_string(), "0.00003");
        assert_eq!(Fpx16_16::MAX.to_string(), "32767.99998");
        assert_eq!(Fpx16_16::MIN.to_string(), "-32768");
        assert_eq!(r(-i32::MAX).to_string(), "-32767.99998");
        assert_eq!(parse("0.1").to_string(), "0.1");
        assert_eq!(parse("3.14159").to_string(), "3.14159");
        assert_eq!(Fpx16_16::from_ratio(1, 60).to_string(), "0.01666");
        assert_eq!(format!("{:?}", r(0x1_8000)), "1.5");
    }

    #[test]
    fn display_round_trips_every_fraction_and_edge() {
        for frac in 0..=0xFFFF {
            for int in [0, 1, 7, 32767] {
                let x = r((int << 16) | frac);
                assert_eq!(parse(&x.to_string()), x, "raw {:#x}", x.to_raw());
                assert_eq!(parse(&(-x).to_string()), -x, "raw {:#x}", (-x).to_raw());
            }
        }
        for raw in [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX] {
            assert_eq!(parse(&r(raw).to_string()), r(raw));
        }
    }

    #[test]
    fn display_honors_precision_width_and_flags() {
        assert_eq!(format!("{:.2}", r(0x1_8000)), "1.50");
        assert_eq!(format!("{:.0}", r(0x8000)), "0"); // 0.5 → even
        assert_eq!(format!("{:.0}", r(0x1_8000)), "2"); // 1.5 → even
        assert_eq!(format!("{:.0}", r(-0x1_8000)), "-2");
        assert_eq!(format!("{:.1}", r(0x1_F000)), "1.9"); // 1.9375: exact 1.9|375
        assert_eq!(format!("{:.3}", r(0xFFFF)), "1.000"); // carry into the integer
        assert_eq!(format!("{:.16}", Fpx16_16::EPSILON), "0.0000152587890625");
        assert_eq!(format!("{:.18}", Fpx16_16::EPSILON), "0.000015258789062500");
        assert_eq!(format!("{:.16}", Fpx16_16::MAX), "32767.9999847412109375");
        assert_eq!(format!("{:+}", Fpx16_16::ONE), "+1");
        assert_eq!(format!("{:08}", r(-0x1_8000)), "-00001.5");
        assert_eq!(format!("{:<5}|", Fpx16_16::ONE), "1    |");
        assert_eq!(format!("{:.2}", r(-1)), "-0.00");
    }

    #[test]
    fn parses_exact_decimals() {
        assert_eq!(parse("1.5").to_raw(), 0x1_8000);
        assert_eq!(parse("+1.5").to_raw(), 0x1_8000);
        assert_eq!(parse("-1.5").to_raw(), -0x1_8000);
        assert_eq!(parse(".25").to_raw(), 0x4000);
        assert_eq!(parse("7.").to_raw(), 7 << 16);
        assert_eq!(parse("-0").to_raw(), 0);
        assert_eq!(parse("000042.000").to_raw(), 42 << 16);
        assert_eq!(parse("0.1").to_raw(), 6554); // 6553.6
        assert_eq!(parse("-0.1").to_raw(), -6554);
        assert_eq!(parse("32767.9999847412109375"), Fpx16_16::MAX);
        assert_eq!(parse("-32768"), Fpx16_16::MIN);
        assert_eq!(parse("-32768.0000076293945312"), Fpx16_16::MIN);
        assert_eq!(parse("0.0000152587890625"), Fpx16_16::EPSILON);
    }

    #[test]
    fn parses_ties_to_even_and_honors_every_digit() {
        // k + 1/2 raw steps, k = 0, 1, 2: 2^-17 × (1, 3, 5).
        assert_eq!(parse("0.00000762939453125").to_raw(), 0);
        assert_eq!(parse("0.00002288818359375").to_raw(), 2);
        assert_eq!(parse("0.00003814697265625").to_raw(), 2);
        assert_eq!(parse("-0.00002288818359375").to_raw(), -2);
        assert_eq!(parse("1.00000762939453125").to_raw(), 65536);
        // A digit far beyond the tie breaks it upward.
        assert_eq!(parse("0.0000076293945312500000000000000001").to_raw(), 1);
        assert_eq!(parse("0.0000076293945312499999999999999999").to_raw(), 0);
        // Trailing zeros keep the tie a tie.
        assert_eq!(parse("0.000007629394531250000000000000000").to_raw(), 0);
        // 32768 − 2^−17 is the tie between MAX (odd) and 2^31: out of range.
        assert!("32767.99999237060546875".parse::<Fpx16_16>().is_err());
        assert_eq!(parse("32767.99999237060546874"), Fpx16_16::MAX);
        // −32768 − 2^−17 rounds to even: MIN.
        assert_eq!(parse("-32768.00000762939453125"), Fpx16_16::MIN);
        assert!("-32768.00000762939453126".parse::<Fpx16_16>().is_err());
    }

    #[test]
    fn rejects_malformed_text_naming_the_text_and_the_accepted_form() {
        for bad in [
            "", "-", "+", ".", "-.", "1.2.3", " 1", "1 ", "1e3", "1_000", "inf", "NaN", "0x10",
            "--1", "+-1", "1,5", "½", "1.5x",
        ] {
            let err = bad.parse::<Fpx16_16>().unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidArgument, "{bad:?}");
            assert_eq!(err.id(), PARSE_INVALID);
            assert_eq!(err.value(), Some(format!("{bad:?}").as_str()));
            assert_eq!(err.accepted(), Some(ACCEPTED_TEXT));
        }
    }

    #[test]
    fn rejects_out_of_range_values() {
        for bad in [
            "32768",
            "-32769",
            "99999999999999999999",
            "32767.99999999",
            "-32768.00001",
        ] {
            let err = bad.parse::<Fpx16_16>().unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::OutOfRange, "{bad:?}");
            assert_eq!(err.id(), PARSE_OUT_OF_RANGE);
        }
    }

    #[test]
    fn error_messages_read_well() {
        let err = "1,5".parse::<Fpx16_16>().unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"math/parse_invalid: invalid argument: fpx16_16 = "1,5"; accepted: decimal text: an optional sign, digits, an optional '.' and fraction digits (e.g. "42", "-1.5", ".25"); no spaces, exponent or underscores (unexpected ',' at byte 1)"#);
        let err = "".parse::<Fpx16_16>().unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"math/parse_invalid: invalid argument: fpx16_16 = ""; accepted: decimal text: an optional sign, digits, an optional '.' and fraction digits (e.g. "42", "-1.5", ".25"); no spaces, exponent or underscores (no digits)"#);
        let err = "40000".parse::<Fpx16_16>().unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"math/parse_out_of_range: out of range: fpx16_16 = "40000"; accepted: -32768 ..= 32767.9999847412109375 after rounding to the nearest 2^-16 (the value is outside the Q16.16 range)"#);
        let long = "9".repeat(100) + "x";
        let err = long.parse::<Fpx16_16>().unwrap_err();
        assert!(
            err.value().is_some_and(|v| v.ends_with("… (101 bytes)")),
            "{err}"
        );
    }

    #[test]
    fn try_from_str_matches_from_str() {
        assert_eq!(Fpx16_16::try_from("2.5").ok(), Some(r(0x2_8000)));
        assert!(Fpx16_16::try_from("x").is_err());
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_uses_decimal_text_and_accepts_numbers() {
        let x = r(0x1_8000);
        assert_eq!(serde_json::to_string(&x).ok().as_deref(), Some("\"1.5\""));
        let back: Fpx16_16 = serde_json::from_str("\"1.5\"").unwrap_or_default();
        assert_eq!(back, x);
        let int: Fpx16_16 = serde_json::from_str("-3").unwrap_or_default();
        assert_eq!(int, Fpx16_16::from_i32(-3));
        let float: Fpx16_16 = serde_json::from_str("0.1").unwrap_or_default();
        assert_eq!(float.to_raw(), 6554);
        for bad in [
            "\"1e3\"",
            "40000",
            "-32769",
            "1e10",
            "32767.999996",
            "\"x\"",
        ] {
            assert!(serde_json::from_str::<Fpx16_16>(bad).is_err(), "{bad}");
        }
        let min: Fpx16_16 = serde_json::from_str("-32768.0").unwrap_or_default();
        assert_eq!(min, Fpx16_16::MIN);
    }
}
