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
