//! [`MathBackend`]: the backend a game selects at init, and
//! [`BackendVisitor`]: the one `match` that runs generic code on it.

use std::fmt;
use std::str::FromStr;

use super::fixed::Fpx16_16;
use super::pinned::Fp32Pinned;
use super::scalar::SimScalar;
use crate::Error;
use crate::events::BACKEND_UNKNOWN;

/// The accepted config ids, quoted in parse errors.
const ACCEPTED_IDS: &str = "\"fixed_point_16_16\" (default) or \"float_pinned_32\"";

/// The deterministic math backend of an engine or zone, chosen once at init
/// from config (`determinism.math`). It is part of replay
/// identity: replay = inputs + seed + math backend + config hash, and a
/// replay never crosses backends.
///
/// | Variant | Config id ([`id`](Self::id)) | Scalar |
/// |---|---|---|
/// | [`FixedPoint16_16`](Self::FixedPoint16_16) (default) | `"fixed_point_16_16"` | [`Fpx16_16`] |
/// | [`FloatPinned32`](Self::FloatPinned32) | `"float_pinned_32"` | [`Fp32Pinned`] |
///
/// ```
/// use laige_core::MathBackend;
///
/// let b: MathBackend = "float_pinned_32".parse()?;
/// assert_eq!(b, MathBackend::FloatPinned32);
/// assert_eq!(MathBackend::default().id(), "fixed_point_16_16");
/// let err = "fixed".parse::<MathBackend>().unwrap_err();
/// assert!(err.to_string().contains("\"fixed\""));
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MathBackend {
    /// Q16.16 fixed point ([`Fpx16_16`]): bit-exact everywhere. The default,
    /// and required for lockstep and authoritative servers.
    #[default]
    FixedPoint16_16,
    /// Pinned IEEE binary32 ([`Fp32Pinned`]): bit-exact per build and
    /// platform/ISA. Opt-in, for single-player or non-lockstep zones.
    FloatPinned32,
}

impl MathBackend {
    /// Every backend, default first.
    pub const ALL: [Self; 2] = [Self::FixedPoint16_16, Self::FloatPinned32];

    /// The config id: `"fixed_point_16_16"` or `"float_pinned_32"`.
    #[must_use]
    pub const fn id(self) -> &'static str {
        match self {
            Self::FixedPoint16_16 => "fixed_point_16_16",
            Self::FloatPinned32 => "float_pinned_32",
        }
    }

    /// Runs `visitor` with the scalar type of this backend: **the** one
    /// `match` between a runtime backend choice and statically dispatched
    /// sim code. Call it once at init and build the whole engine/zone inside
    /// the visitor, so every hot op is monomorphized for one scalar — no
    /// `dyn`, no per-op branch.
    ///
    /// The visitor implements [`BackendVisitor<S>`] for both scalars,
    /// usually with one blanket impl whose bound is what its code needs
    /// (`SimScalar` here; the engine adds the state hash):
    ///
    /// ```
    /// use laige_core::math::BackendVisitor;
    /// use laige_core::{MathBackend, SimScalar, Vec2};
    ///
    /// /// The game's sim, generic over the scalar.
    /// struct RunSim {
    ///     ticks: u32,
    /// }
    ///
    /// impl<S: SimScalar> BackendVisitor<S> for RunSim {
    ///     type Output = String;
    ///     fn visit(self) -> String {
    ///         let dt = S::from_ratio(1, 60);
    ///         let vel = Vec2::new(S::from_i32(6), S::ZERO);
    ///         let mut pos = Vec2::<S>::ZERO;
    ///         for _ in 0..self.ticks {
    ///             pos += vel * dt;
    ///         }
    ///         format!("{}: x = {:.3}", S::BACKEND, pos.x)
    ///     }
    /// }
    ///
    /// let backend: MathBackend = "fixed_point_16_16".parse()?;
    /// assert_eq!(backend.run(RunSim { ticks: 60 }), "fixed_point_16_16: x = 5.999");
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    pub fn run<V, O>(self, visitor: V) -> O
    where
        V: BackendVisitor<Fpx16_16, Output = O> + BackendVisitor<Fp32Pinned, Output = O>,
    {
        match self {
            Self::FixedPoint16_16 => <V as BackendVisitor<Fpx16_16>>::visit(visitor),
            Self::FloatPinned32 => <V as BackendVisitor<Fp32Pinned>>::visit(visitor),
        }
    }
}

/// Generic code to run for the backend chosen at runtime, instantiated for
/// the scalar `S`: implement it once for every `S` your code accepts (a
/// blanket `impl<S: YourBound> BackendVisitor<S> for V`) and hand the
/// visitor to [`MathBackend::run`], which accepts it when both backends'
/// scalars meet that bound. A visitor is a value (it can carry the config,
/// the world, a seed), so no closure over a generic type is needed, and
/// the bound is the visitor's to choose: a crate whose code needs more than
/// [`SimScalar`] (say, a state-hash trait of its own) states it in its impl,
/// and the compiler checks both scalars provide it.
pub trait BackendVisitor<S: SimScalar> {
    /// What the visit returns (the same type for every backend).
    type Output;
    /// The code to run, instantiated for `S`.
    fn visit(self) -> Self::Output;
}

/// The config id (`fixed_point_16_16`).
impl fmt::Display for MathBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.id())
    }
}

/// Parses a config id exactly (case-sensitive, no surrounding spaces).
/// Anything else is [`ErrorCode::InvalidArgument`](crate::ErrorCode)
/// `math/backend_unknown`, naming the text and the accepted ids.
impl FromStr for MathBackend {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        match text {
            "fixed_point_16_16" => Ok(Self::FixedPoint16_16),
            "float_pinned_32" => Ok(Self::FloatPinned32),
            _ => Err(Error::invalid_argument(
                BACKEND_UNKNOWN,
                "determinism.math",
                Error::quoted(text),
                ACCEPTED_IDS,
            )),
        }
    }
}

impl TryFrom<&str> for MathBackend {
    type Error = Error;

    fn try_from(text: &str) -> Result<Self, Error> {
        text.parse()
    }
}

#[cfg(feature = "serde")]
mod serde_impl {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::MathBackend;

    /// Serialized as its config id.
    impl Serialize for MathBackend {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(self.id())
        }
    }

    /// Deserialized from its config id (the `FromStr` error on anything else).
    impl<'de> Deserialize<'de> for MathBackend {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
            text.parse().map_err(serde::de::Error::custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn ids_round_trip() {
        for b in MathBackend::ALL {
            assert_eq!(b.id().parse::<MathBackend>().ok(), Some(b));
            assert_eq!(MathBackend::try_from(b.id()).ok(), Some(b));
            assert_eq!(b.to_string(), b.id());
        }
        assert_eq!(MathBackend::default(), MathBackend::FixedPoint16_16);
        assert_eq!(
            format!("{:>20}", MathBackend::FloatPinned32),
            "     float_pinned_32"
        );
    }

    #[test]
    fn unknown_ids_are_rejected_with_the_accepted_set() {
        for bad in [
            "",
            "Fixed_Point_16_16",
            " fixed_point_16_16",
            "float",
            "fp32_pinned",
            "fpx16_16",
        ] {
            let err = bad.parse::<MathBackend>().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArgument);
            assert_eq!(err.id(), BACKEND_UNKNOWN);
            assert_eq!(err.field(), Some("determinism.math"));
            assert_eq!(err.value(), Some(format!("{bad:?}").as_str()));
            assert_eq!(err.accepted(), Some(ACCEPTED_IDS));
        }
        let err = "fpx16_16".parse::<MathBackend>().unwrap_err();
        insta::assert_snapshot!(err.to_string(), @r#"math/backend_unknown: invalid argument: determinism.math = "fpx16_16"; accepted: "fixed_point_16_16" (default) or "float_pinned_32""#);
        let long = "x".repeat(200);
        let err = long.parse::<MathBackend>().unwrap_err();
        assert!(err.value().is_some_and(|v| v.ends_with("… (200 bytes)")));
    }

    struct WhichScalar;

    impl<S: SimScalar> BackendVisitor<S> for WhichScalar {
        type Output = (MathBackend, u32);
        fn visit(self) -> (MathBackend, u32) {
            (S::BACKEND, S::from_ratio(1, 2).to_hash_bits())
        }
    }

    #[test]
    fn run_instantiates_the_selected_scalar() {
        assert_eq!(
            MathBackend::FixedPoint16_16.run(WhichScalar),
            (MathBackend::FixedPoint16_16, 0x8000)
        );
        assert_eq!(
            MathBackend::FloatPinned32.run(WhichScalar),
            (MathBackend::FloatPinned32, 0.5f32.to_bits())
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_uses_the_config_id() {
        assert_eq!(
            serde_json::to_string(&MathBackend::FloatPinned32)
                .ok()
                .as_deref(),
            Some("\"float_pinned_32\"")
        );
        let b: Option<MathBackend> = serde_json::from_str("\"fixed_point_16_16\"").ok();
        assert_eq!(b, Some(MathBackend::FixedPoint16_16));
        let err = serde_json::from_str::<MathBackend>("\"nope\"").unwrap_err();
        assert!(err.to_string().contains("accepted"));
    }
}
