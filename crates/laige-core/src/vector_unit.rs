//! Running a hot loop on the widest vector unit of the CPU it runs on.
//!
//! Builds target baseline x86-64 (SSE2), so a loop the compiler runs several
//! values wide uses 128-bit registers everywhere, even on a CPU with AVX2
//! (256-bit) or AVX-512 (512-bit, with a 64-bit multiply). [`VectorUnit`]
//! names those units; [`VectorUnit::run`] runs a closure compiled for one of
//! them: the closure's body (and what it inlines) is built once per unit, and
//! the CPU check, cached by `std`, picks the build at run time.
//!
//! **Rule: a closure given to [`VectorUnit::run`] computes the same bits on
//! every unit.** Integer arithmetic and the IEEE basic operations (`+ − × ÷`,
//! `sqrt`, compares, conversions) are exact or correctly rounded at every
//! width, and Rust never fuses a multiply and an add unless asked
//! (`mul_add`), so loops of those qualify; the tests of each caller compare
//! every unit the CPU has ([`VectorUnit::all_here`]) against the portable
//! build. On other architectures every unit but [`VectorUnit::Portable`] is
//! absent and `run` calls the closure as it is.
//!
//! ```
//! use laige_core::VectorUnit;
//!
//! let values: Vec<u64> = (0..1000).collect();
//! let sum = |v: &[u64]| v.iter().fold(0u64, |a, &x| a.wrapping_add(x.wrapping_mul(x)));
//! // `#[inline(always)]`: the closure's body is what each build compiles.
//! let widest = VectorUnit::widest().run(#[inline(always)] || sum(&values));
//! for unit in VectorUnit::all_here() {
//!     assert_eq!(unit.run(#[inline(always)] || sum(&values)), widest, "{unit:?}");
//! }
//! ```

use std::sync::atomic::{AtomicU8, Ordering};

/// A vector unit a loop can be built for (see the [module](self) docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
#[repr(u8)]
pub enum VectorUnit {
    /// The build's own target (SSE2 on baseline x86-64): every CPU.
    Portable = 0,
    /// x86-64 AVX2: 256-bit integer and float vectors.
    Avx2 = 1,
    /// x86-64 AVX-512 F, DQ, VL and BW: 512-bit vectors, a 64-bit multiply
    /// (`vpmullq`), mask registers.
    Avx512 = 2,
}

/// The widest unit [`VectorUnit::widest`] may return, as `VectorUnit as u8`
/// ([`VectorUnit::limit_widest`]); no limit at first.
static WIDEST_ALLOWED: AtomicU8 = AtomicU8::new(VectorUnit::Avx512 as u8);

impl VectorUnit {
    /// Every unit, narrowest first.
    pub const ALL: [Self; 3] = [Self::Portable, Self::Avx2, Self::Avx512];

    /// The unit's name as [`FromStr`](std::str::FromStr) reads it:
    /// `portable`, `avx2`, `avx512`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
        }
    }

    /// Makes [`widest`](Self::widest) return at most `max` from now on, in
    /// the whole process (`Avx512`, the widest, lifts the limit): a loop
    /// that picks the widest unit then runs as it does on a CPU that has
    /// only up to `max`. The results are the same bits on every unit (the
    /// [module](self) rule), so only the speed changes: to measure what a
    /// baseline x86-64 CPU gets (`laige-bench --vector-unit portable`), or
    /// to compare the units in one process.
    ///
    /// ```
    /// use laige_core::VectorUnit;
    /// VectorUnit::limit_widest(VectorUnit::Portable);
    /// assert_eq!(VectorUnit::widest(), VectorUnit::Portable);
    /// VectorUnit::limit_widest(VectorUnit::Avx512);
    /// assert_eq!(VectorUnit::widest(), VectorUnit::all_here().last().unwrap());
    /// ```
    pub fn limit_widest(max: Self) {
        WIDEST_ALLOWED.store(max as u8, Ordering::Relaxed);
    }

    /// Whether this CPU (and the OS, which must save the wide registers)
    /// can run code built for `self`. After the first call, a relaxed load
    /// per feature.
    #[must_use]
    #[inline]
    pub fn is_here(self) -> bool {
        match self {
            Self::Portable => true,
            Self::Avx2 => detect::avx2(),
            Self::Avx512 => detect::avx512(),
        }
    }

    /// The widest unit this CPU has, within the limit
    /// [`limit_widest`](Self::limit_widest) set (none unless it was called).
    #[must_use]
    #[inline]
    pub fn widest() -> Self {
        let allowed = WIDEST_ALLOWED.load(Ordering::Relaxed);
        if allowed >= Self::Avx512 as u8 && Self::Avx512.is_here() {
            Self::Avx512
        } else if allowed >= Self::Avx2 as u8 && Self::Avx2.is_here() {
            Self::Avx2
        } else {
            Self::Portable
        }
    }

    /// Every unit this CPU has, narrowest ([`Portable`](Self::Portable))
    /// first: what a test compares.
    pub fn all_here() -> impl Iterator<Item = Self> {
        Self::ALL.into_iter().filter(|u| u.is_here())
    }

    /// `f()`, built for `self` if this CPU has it, else for
    /// [`Portable`](Self::Portable). Only what the compiler inlines is
    /// built for the unit: mark the closure `#[inline(always)]` (written
    /// `unit.run(#[inline(always)] || work(data))`; `run` calls it from
    /// three builds, so without the mark LLVM keeps it out of line, in the
    /// portable build), and make the loop it calls `#[inline]` down to its
    /// arithmetic (`#[inline(always)]` where it is large).
    #[inline]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            Self::Portable => f(),
            Self::Avx2 => detect::on_avx2(f),
            Self::Avx512 => detect::on_avx512(f),
        }
    }
}

/// Parses a unit by its [`name`](VectorUnit::name), exactly: `portable`,
/// `avx2` or `avx512` (also on a CPU without the unit: a limit names it).
/// Anything else is [`ErrorCode::InvalidArgument`](crate::ErrorCode)
/// `math/vector_unit_unknown`, naming the text and the accepted names.
impl std::str::FromStr for VectorUnit {
    type Err = crate::Error;

    fn from_str(text: &str) -> crate::Result<Self> {
        Self::ALL
            .into_iter()
            .find(|u| u.name() == text)
            .ok_or_else(|| {
                crate::Error::invalid_argument(
                    crate::events::VECTOR_UNIT_UNKNOWN,
                    "vector_unit",
                    crate::Error::quoted(text),
                    "\"portable\", \"avx2\" or \"avx512\"",
                )
            })
    }
}

#[cfg(target_arch = "x86_64")]
mod detect {
    // det-allow(arch): CPU feature detection picks a build of a loop for the CPU's vector width; callers' loops compute the same bits on every width (tested)
    use std::arch::is_x86_feature_detected;

    #[inline]
    pub(super) fn avx2() -> bool {
        is_x86_feature_detected!("avx2")
    }

    #[inline]
    pub(super) fn avx512() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512bw")
    }

    #[target_feature(enable = "avx2")]
    fn avx2_build<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx512bw")]
    fn avx512_build<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    #[inline]
    pub(super) fn on_avx2<R>(f: impl FnOnce() -> R) -> R {
        if avx2() {
            #[expect(
                unsafe_code,
                reason = "a target-feature function, called after its feature was detected"
            )]
            // SAFETY: `avx2_build` requires AVX2, which `avx2` just found.
            return unsafe { avx2_build(f) };
        }
        f()
    }

    #[inline]
    pub(super) fn on_avx512<R>(f: impl FnOnce() -> R) -> R {
        if avx512() {
            #[expect(
                unsafe_code,
                reason = "a target-feature function, called after its features were detected"
            )]
            // SAFETY: `avx512_build` requires AVX-512 F, DQ, VL and BW, which
            // `avx512` just found.
            return unsafe { avx512_build(f) };
        }
        f()
    }
}

/// Other architectures: no wider build.
#[cfg(not(target_arch = "x86_64"))]
mod detect {
    #[inline]
    pub(super) fn avx2() -> bool {
        false
    }

    #[inline]
    pub(super) fn avx512() -> bool {
        false
    }

    #[inline]
    pub(super) fn on_avx2<R>(f: impl FnOnce() -> R) -> R {
        f()
    }

    #[inline]
    pub(super) fn on_avx512<R>(f: impl FnOnce() -> R) -> R {
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::VectorUnit;

    /// Also the limit: the one test that sets it (the process-wide limit
    /// would race with another test's reading of `widest`).
    #[test]
    fn portable_is_everywhere_and_first_and_widest_keeps_to_the_limit() {
        let here: Vec<_> = VectorUnit::all_here().collect();
        assert_eq!(here.first(), Some(&VectorUnit::Portable));
        assert_eq!(here.last(), Some(&VectorUnit::widest()));
        for max in VectorUnit::ALL {
            VectorUnit::limit_widest(max);
            let want = here.iter().copied().filter(|u| *u <= max).max();
            assert_eq!(Some(VectorUnit::widest()), want, "limit {max:?}");
        }
        // Avx512, the widest, lifts the limit.
        assert_eq!(here.last(), Some(&VectorUnit::widest()));
    }

    #[test]
    fn units_parse_by_name_and_nothing_else() {
        for unit in VectorUnit::ALL {
            assert_eq!(unit.name().parse::<VectorUnit>().ok(), Some(unit));
        }
        for bad in ["", "AVX2", " avx2", "sse2", "avx-512", "avx512f"] {
            let e = bad.parse::<VectorUnit>().expect_err(bad);
            assert_eq!(e.code(), crate::ErrorCode::InvalidArgument, "{bad:?}");
            let text = e.to_string();
            assert!(
                text.contains("vector_unit") && text.contains("avx512"),
                "{text}"
            );
        }
    }

    #[test]
    fn every_unit_runs_the_closure_once_with_its_value() {
        let v: Vec<u32> = (0..4099)
            .map(|i: u32| i.wrapping_mul(2_654_435_761))
            .collect();
        let f = |v: &[u32]| {
            v.iter()
                .map(|&x| u64::from(x) * u64::from(x >> 3))
                .fold(0u64, u64::wrapping_add)
        };
        let expected = f(&v);
        for unit in VectorUnit::ALL {
            let mut calls = 0;
            let got = unit.run(|| {
                calls += 1;
                f(&v)
            });
            assert_eq!((got, calls), (expected, 1), "{unit:?}");
        }
    }
}
