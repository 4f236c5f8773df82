//! Deterministic simulation math: one op surface, two backends.
//!
//! Simulation code is written once, generic over a [`SimScalar`], and runs
//! on the backend the game selects at init ([`MathBackend`]):
//!
//! | Backend | Config id | Storage | Determinism scope |
//! |---|---|---|---|
//! | [`Fpx16_16`] (default) | `"fixed_point_16_16"` | Q16.16 in `i32`, `i64` intermediates | Bit-exact on every build, platform, ISA and compiler: integer arithmetic only, every op defined for every input. Required for lockstep and authoritative servers. |
//! | [`Fp32Pinned`] (opt-in) | `"float_pinned_32"` | IEEE binary32 | Bit-exact across runs of the same build on the same platform/ISA. Cross-ISA is not promised until the detcheck matrix proves it. |
//!
//! Both backends round to nearest, ties to even. `Fpx16_16` saturates
//! instead of overflowing and defines division by zero; `Fp32Pinned`
//! follows IEEE 754 (NaN, ±inf, signed zero, denormals) and is never fused
//! into a multiply-add. Vectors ([`Vec2`], [`Vec3`]) are component-wise
//! compositions of the scalar ops in a pinned order, so the same expression
//! gives the same bits every time. The full contract (saturation table,
//! tie cases, conversions, `length` vs `length_wide`, the game ops and
//! their measured error bounds) follows the example below.
//!
//! ```
//! use laige_core::{Fpx16_16, SimScalar, Vec2};
//!
//! // Generic sim code: written once, instantiated per backend.
//! fn step<S: SimScalar>(pos: Vec2<S>, vel: Vec2<S>, dt: S) -> Vec2<S> {
//!     let bound = Vec2::new(S::from_i32(64), S::from_i32(64));
//!     (pos + vel * dt).clamp(Vec2::ZERO, bound)
//! }
//!
//! let dt = Fpx16_16::from_ratio(1, 60);
//! let pos = Vec2::new(Fpx16_16::from_i32(1), Fpx16_16::from_i32(2));
//! let vel: Vec2<Fpx16_16> = Vec2::new("0.5".parse()?, "-0.25".parse()?);
//! let next = step(pos, vel, dt);
//! assert_eq!(next.x.to_raw(), 65536 + 546); // 0.5 * round(65536 / 60)
//! # Ok::<(), laige_core::Error>(())
//! ```
//!
//! Selecting the backend at init is one `match`, hidden in
//! [`MathBackend::run`]: see [`BackendVisitor`].
//!
#![doc = include_str!("contract.md")]

mod angle;
mod backend;
mod f32_bits;
mod fixed;
mod fixed_convert;
mod fixed_text;
mod fixed_trig;
mod isqrt;
mod pinned;
mod pinned_trig;
mod rounding;
mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
mod trig_tables;
mod vec2;
mod vec3;
mod vec_ops;
mod wide;

pub use angle::BinaryAngle;
pub use backend::{BackendVisitor, MathBackend};
pub use fixed::Fpx16_16;
pub use pinned::Fp32Pinned;
pub use scalar::SimScalar;
pub use vec2::Vec2;
pub use vec3::Vec3;
