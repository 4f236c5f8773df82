//! The component-wise operator impls shared by [`Vec2`](super::Vec2) and
//! [`Vec3`](super::Vec3): one scalar op per component, in the backend's
//! format, in component order.

/// Implements `+ - * /` (vector ⊙ vector component-wise, vector ⊙ scalar
/// scaling, `scalar * vector` scaling for both backends), unary `-` and the
/// `*Assign` forms for a vector type with the given fields.
macro_rules! impl_vec_ops {
    ($Vec:ident { $($f:ident),+ }) => {
        impl<S: SimScalar> ::std::ops::Add for $Vec<S> {
            type Output = Self;
            /// Component-wise `+`.
            #[inline]
            fn add(self, rhs: Self) -> Self {
                Self { $($f: self.$f + rhs.$f),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Sub for $Vec<S> {
            type Output = Self;
            /// Component-wise `-`.
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                Self { $($f: self.$f - rhs.$f),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Mul for $Vec<S> {
            type Output = Self;
            /// Component-wise `*` (not a dot product).
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                Self { $($f: self.$f * rhs.$f),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Div for $Vec<S> {
            type Output = Self;
            /// Component-wise `/`.
            #[inline]
            fn div(self, rhs: Self) -> Self {
                Self { $($f: self.$f / rhs.$f),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Mul<S> for $Vec<S> {
            type Output = Self;
            /// Scaling: every component times `rhs`.
            #[inline]
            fn mul(self, rhs: S) -> Self {
                Self { $($f: self.$f * rhs),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Div<S> for $Vec<S> {
            type Output = Self;
            /// Every component divided by `rhs`.
            #[inline]
            fn div(self, rhs: S) -> Self {
                Self { $($f: self.$f / rhs),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::Neg for $Vec<S> {
            type Output = Self;
            /// Component-wise unary `-`.
            #[inline]
            fn neg(self) -> Self {
                Self { $($f: -self.$f),+ }
            }
        }

        impl<S: SimScalar> ::std::ops::AddAssign for $Vec<S> {
            #[inline]
            fn add_assign(&mut self, rhs: Self) {
                *self = *self + rhs;
            }
        }

        impl<S: SimScalar> ::std::ops::SubAssign for $Vec<S> {
            #[inline]
            fn sub_assign(&mut self, rhs: Self) {
                *self = *self - rhs;
            }
        }

        impl<S: SimScalar> ::std::ops::MulAssign for $Vec<S> {
            #[inline]
            fn mul_assign(&mut self, rhs: Self) {
                *self = *self * rhs;
            }
        }

        impl<S: SimScalar> ::std::ops::DivAssign for $Vec<S> {
            #[inline]
            fn div_assign(&mut self, rhs: Self) {
                *self = *self / rhs;
            }
        }

        impl<S: SimScalar> ::std::ops::MulAssign<S> for $Vec<S> {
            #[inline]
            fn mul_assign(&mut self, rhs: S) {
                *self = *self * rhs;
            }
        }

        impl<S: SimScalar> ::std::ops::DivAssign<S> for $Vec<S> {
            #[inline]
            fn div_assign(&mut self, rhs: S) {
                *self = *self / rhs;
            }
        }

        impl ::std::ops::Mul<$Vec<Fpx16_16>> for Fpx16_16 {
            type Output = $Vec<Fpx16_16>;
            /// Scaling: `s * v` is `v * s` (each component `s × c`).
            #[inline]
            fn mul(self, rhs: $Vec<Fpx16_16>) -> $Vec<Fpx16_16> {
                $Vec { $($f: self * rhs.$f),+ }
            }
        }

        impl ::std::ops::Mul<$Vec<Fp32Pinned>> for Fp32Pinned {
            type Output = $Vec<Fp32Pinned>;
            /// Scaling: `s * v` is `v * s` (each component `s × c`).
            #[inline]
            fn mul(self, rhs: $Vec<Fp32Pinned>) -> $Vec<Fp32Pinned> {
                $Vec { $($f: self * rhs.$f),+ }
            }
        }

        /// `(x, y[, z])` with each component's `Display` (formatting flags
        /// apply to every component).
        impl<S: SimScalar> ::std::fmt::Display for $Vec<S> {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str("(")?;
                let mut first = true;
                $(
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    ::std::fmt::Display::fmt(&self.$f, f)?;
                )+
                let _ = first;
                f.write_str(")")
            }
        }
    };
}

pub(crate) use impl_vec_ops;

/// Implements the methods whose bodies are the same for every vector type
/// (one expression per component, in component order): `normalize`,
/// `normalize_wide`, `clamp`, `lerp`, `min`, `max`, `abs`, `equals`,
/// `not_equals`.
macro_rules! impl_vec_methods {
    ($Vec:ident { $($f:ident),+ }) => {
        impl<S: SimScalar> $Vec<S> {
            /// `self / length(self)` component-wise; a vector whose
            /// [`length`](Self::length) is zero (the zero vector, and on
            /// Q16.16 also vectors so short their squares round to zero)
            /// normalizes to the zero vector — never NaN from a zero
            /// length. NaN/inf components propagate per IEEE on binary32.
            #[inline]
            #[must_use]
            pub fn normalize(self) -> Self {
                let len = self.length();
                if len == S::ZERO {
                    return Self::ZERO;
                }
                self / len
            }

            /// The direction through the wide path. Q16.16: each component
            /// is the Q16.16 value **nearest to the exact** `c / |v|`, with
            /// `|v|` the exact root of the sum of squared raws (not
            /// saturated) — decided exactly, no tie possible. Any
            /// non-zero vector, however short or long, gets a unit
            /// direction to within half a raw step per component (raw
            /// `(1, 1)` → `(0.70711, 0.70711)`). Only the zero vector gives
            /// the zero vector. Binary32: [`normalize`](Self::normalize).
            #[inline]
            #[must_use]
            pub fn normalize_wide(self) -> Self {
                // Binary32: the same operations as `normalize`, called as
                // such. Through the array hook, the `[f32; N]` it returns is
                // packed into an integer, and the branch on a zero length
                // then merges integers instead of floats: LLVM does not
                // turn that into a select, so a loop over `normalize_wide`
                // stayed one value at a time (`sqrtss`/`divss`) where the
                // same loop over `normalize` runs four wide (`sqrtps`).
                if matches!(S::BACKEND, crate::MathBackend::FloatPinned32) {
                    return self.normalize();
                }
                Self::from_array(S::wide_normalize(self.to_array()))
            }

            /// Component-wise [`SimScalar::clamp`] to `[lo, hi]`.
            #[inline]
            #[must_use]
            pub fn clamp(self, lo: Self, hi: Self) -> Self {
                Self { $($f: self.$f.clamp(lo.$f, hi.$f)),+ }
            }

            /// Exactly `self + (b − self) · t` component-wise (one sub, one
            /// mul, one add per component; never fused).
            #[inline]
            #[must_use]
            pub fn lerp(self, b: Self, t: S) -> Self {
                self + (b - self) * t
            }

            /// Component-wise [`SimScalar::min`].
            #[inline]
            #[must_use]
            pub fn min(self, other: Self) -> Self {
                Self { $($f: self.$f.min(other.$f)),+ }
            }

            /// Component-wise [`SimScalar::max`].
            #[inline]
            #[must_use]
            pub fn max(self, other: Self) -> Self {
                Self { $($f: self.$f.max(other.$f)),+ }
            }

            /// Component-wise [`SimScalar::abs`].
            #[inline]
            #[must_use]
            pub fn abs(self) -> Self {
                Self { $($f: self.$f.abs()),+ }
            }

            /// True when every component [`equals`](SimScalar::equals)
            /// (false if any is NaN).
            #[inline]
            #[must_use]
            pub fn equals(self, other: Self) -> bool {
                true $(&& self.$f.equals(other.$f))+
            }

            /// `!equals`: true when any component differs or is NaN.
            #[inline]
            #[must_use]
            pub fn not_equals(self, other: Self) -> bool {
                !self.equals(other)
            }
        }
    };
}
pub(crate) use impl_vec_methods;
