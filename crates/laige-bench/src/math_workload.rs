//! The `math` area's workload figures (`math.workload_10k.*`,
//! `math.workload_parts_10k.*`: see the area's docs in `math.rs`): the
//! reference workload's per-entity math on `Fp32Pinned` beside the same
//! math in plain `f32`, and its two passes measured apart on both backends.

use std::hint::black_box;

use laige_core::{Fp32Pinned, Fpx16_16, SimScalar, Vec2};
use laige_sim::workload::{self, WorkloadConfig, WorkloadParams};

use crate::harness::Bench;
use crate::math::V2;

/// One body of the workload, on `Fp32Pinned`.
#[derive(Clone, Copy)]
struct PinnedBody {
    pos: Vec2<Fp32Pinned>,
    prev: Vec2<Fp32Pinned>,
    vel: Vec2<Fp32Pinned>,
}

/// One body of the workload, in plain `f32`.
#[derive(Clone, Copy)]
struct F32Body {
    pos: V2,
    prev: V2,
    vel: V2,
}

/// The workload's `reflect` in plain `f32`: the same comparisons and
/// operations as `laige_sim::workload`'s on `Fp32Pinned`.
#[inline]
fn f32_reflect(c: f32, v: f32, bound: f32) -> (f32, f32) {
    let clamp = |x: f32| {
        if x < -bound {
            -bound
        } else if x > bound {
            bound
        } else {
            x
        }
    };
    if c > bound {
        (clamp(bound + bound - c), -v)
    } else if c < -bound {
        (clamp(-bound - bound - c), -v)
    } else {
        (c, v)
    }
}

/// One tick of the workload in plain `f32` (integrate, reflect where a body
/// left the box, then the attractor through a normalize), as a user would
/// write it: the same structure as `laige_sim::workload::integrate`.
fn f32_tick(bodies: &mut [F32Body], dt: f32, bound: f32, accel_dt: f32) {
    for b in bodies.iter_mut() {
        b.prev = b.pos;
        b.pos = b.pos + b.vel * dt;
        let outside = |c: f32| (c > bound) | (c < -bound);
        if outside(b.pos.x) | outside(b.pos.y) {
            let (x, vx) = f32_reflect(b.pos.x, b.vel.x, bound);
            let (y, vy) = f32_reflect(b.pos.y, b.vel.y, bound);
            b.pos = V2 { x, y };
            b.vel = V2 { x: vx, y: vy };
        }
    }
    for b in bodies.iter_mut() {
        let d = V2 {
            x: 0.0 - b.pos.x,
            y: 0.0 - b.pos.y,
        };
        let len = (d.x * d.x + d.y * d.y).sqrt();
        let dir = if len == 0.0 {
            V2 { x: 0.0, y: 0.0 }
        } else {
            V2 {
                x: d.x / len,
                y: d.y / len,
            }
        };
        b.vel = b.vel + dir * accel_dt;
    }
}

/// The same tick on `Fp32Pinned`, through the workload's own functions.
fn pinned_tick(bodies: &mut [PinnedBody], p: &WorkloadParams<Fp32Pinned>) {
    for b in bodies.iter_mut() {
        workload::integrate(&mut b.pos, &mut b.prev, &mut b.vel, p);
    }
    workload::attract_all(bodies.iter_mut().map(|b| (&b.pos, &mut b.vel)), p);
}

/// `math.workload_10k`: the pinned workload beside plain `f32`, interleaved.
pub(crate) fn pinned_workload_vs_f32(b: &mut Bench) {
    let config = WorkloadConfig {
        entities: 10_000,
        ..WorkloadConfig::default()
    };
    let params = WorkloadParams::<Fp32Pinned>::new(&config);
    let mut pinned: Vec<PinnedBody> = workload::initial_state::<Fp32Pinned>(&config)
        .map(|(pos, prev, vel)| PinnedBody {
            pos: pos.0,
            prev: prev.0,
            vel: vel.0,
        })
        .collect();
    let plain = |v: Vec2<Fp32Pinned>| V2 {
        x: v.x.to_f32(),
        y: v.y.to_f32(),
    };
    let mut floats: Vec<F32Body> = pinned
        .iter()
        .map(|p| F32Body {
            pos: plain(p.pos),
            prev: plain(p.prev),
            vel: plain(p.vel),
        })
        .collect();
    assert_eq!(params.center, Vec2::ZERO, "the f32 side assumes the origin");
    let (dt, bound, accel_dt) = (
        params.dt.to_f32(),
        params.bound.to_f32(),
        params.accel_dt.to_f32(),
    );
    let mut run_fp = || {
        pinned_tick(black_box(&mut pinned), black_box(&params));
    };
    let mut run_f = || {
        let (dt, bound, accel_dt) = black_box((dt, bound, accel_dt));
        f32_tick(black_box(&mut floats), dt, bound, accel_dt);
    };
    let samples = b.scaled(200).max(10);
    let stats = b.interleaved(samples, 1, &mut [&mut run_fp, &mut run_f]);
    // Both sides ran the same number of ticks: the states must agree bit
    // for bit, or the comparison is not of the same math.
    for (p, f) in pinned.iter().zip(&floats) {
        let bits = |v: V2| (v.x.to_bits(), v.y.to_bits());
        assert_eq!(
            bits(plain(p.pos)),
            bits(f.pos),
            "pinned and f32 workloads diverged"
        );
        assert_eq!(
            bits(plain(p.vel)),
            bits(f.vel),
            "pinned and f32 workloads diverged"
        );
    }
    let (fp, f) = (stats[0].median / 1e6, stats[1].median / 1e6);
    b.record("math.workload_10k.fp_ms", fp, "ms");
    b.record("math.workload_10k.f32_ms", f, "ms");
    b.ratio("math.workload_10k.fp_vs_f32", fp, f);
}

/// One body of the workload on either backend.
#[derive(Clone, Copy)]
struct Body<S> {
    pos: Vec2<S>,
    prev: Vec2<S>,
    vel: Vec2<S>,
}

/// The 10k workload's bodies and constants on `S`.
fn bodies<S: SimScalar>(config: &WorkloadConfig) -> (Vec<Body<S>>, WorkloadParams<S>) {
    let bodies = workload::initial_state::<S>(config)
        .map(|(pos, prev, vel)| Body {
            pos: pos.0,
            prev: prev.0,
            vel: vel.0,
        })
        .collect();
    (bodies, WorkloadParams::new(config))
}

/// `math.workload_parts_10k`: the reference workload's two passes apart,
/// over a `Vec` of 10k bodies on each backend, all four interleaved:
/// `{fx,fp}_integrate_ms` (`prev = pos; pos += vel·dt`, reflect) and
/// `{fx,fp}_attract_ms` (`vel += normalize_wide(center − pos)·accel_dt`),
/// each pass run on its own (the bodies drift as in the real tick), and
/// the `fx_vs_fp` ratio of each: where `Fpx16_16`'s time goes.
pub(crate) fn workload_parts(b: &mut Bench) {
    let config = WorkloadConfig {
        entities: 10_000,
        ..WorkloadConfig::default()
    };
    let (mut fx_i, fx_p) = bodies::<Fpx16_16>(&config);
    let mut fx_a = fx_i.clone();
    let mut fx_n = fx_i.clone();
    let mut fx_b = fx_i.clone();
    let mut fx_e = fx_i.clone();
    let (mut fp_i, fp_p) = bodies::<Fp32Pinned>(&config);
    let mut fp_a = fp_i.clone();
    let mut run_fx_i = || {
        for b in black_box(&mut fx_i).iter_mut() {
            workload::integrate(&mut b.pos, &mut b.prev, &mut b.vel, black_box(&fx_p));
        }
    };
    let mut run_fx_a = || {
        let bodies = black_box(&mut fx_a).iter_mut();
        workload::attract_all(bodies.map(|b| (&b.pos, &mut b.vel)), black_box(&fx_p));
    };
    // The attract pass one entity at a time (`workload::attract`, one
    // `normalize_wide` each): what the batch replaced.
    let mut run_fx_e = || {
        for b in black_box(&mut fx_e).iter_mut() {
            workload::attract(&b.pos, &mut b.vel, black_box(&fx_p));
        }
    };
    let mut run_fp_i = || {
        for b in black_box(&mut fp_i).iter_mut() {
            workload::integrate(&mut b.pos, &mut b.prev, &mut b.vel, black_box(&fp_p));
        }
    };
    let mut run_fp_a = || {
        let bodies = black_box(&mut fp_a).iter_mut();
        workload::attract_all(bodies.map(|b| (&b.pos, &mut b.vel)), black_box(&fp_p));
    };
    // The attract pass without its normalize (`vel += (center − pos) ·
    // accel_dt`, the same Fpx16_16 ops otherwise): not the workload, the
    // part of its time that is not normalize_wide.
    let mut run_fx_n = || {
        for b in black_box(&mut fx_n).iter_mut() {
            let p = black_box(&fx_p);
            b.vel += (p.center - b.pos) * p.accel_dt;
        }
    };
    // A lower bound of the method, not an implementation: the attract
    // pass with each direction component only proposed (the binary64
    // quotient rounded, no decision, no fallback), the rest as above.
    let mut run_fx_b = || {
        for b in black_box(&mut fx_b).iter_mut() {
            let p = black_box(&fx_p);
            let d = p.center - b.pos;
            b.vel += proposed_direction(d) * p.accel_dt;
        }
    };
    let samples = b.scaled(200).max(10);
    let stats = b.interleaved(
        samples,
        1,
        &mut [
            &mut run_fx_i,
            &mut run_fp_i,
            &mut run_fx_a,
            &mut run_fp_a,
            &mut run_fx_n,
            &mut run_fx_b,
            &mut run_fx_e,
        ],
    );
    let ms: Vec<f64> = stats.iter().map(|s| s.median / 1e6).collect();
    let name = "math.workload_parts_10k";
    b.record(&format!("{name}.fx_integrate_ms"), ms[0], "ms");
    b.record(&format!("{name}.fp_integrate_ms"), ms[1], "ms");
    b.record(&format!("{name}.fx_attract_ms"), ms[2], "ms");
    b.record(&format!("{name}.fp_attract_ms"), ms[3], "ms");
    b.ratio(&format!("{name}.integrate_fx_vs_fp"), ms[0], ms[1]);
    b.ratio(&format!("{name}.attract_fx_vs_fp"), ms[2], ms[3]);
    b.record(
        &format!("{name}.fx_attract_without_normalize_ms"),
        ms[4],
        "ms",
    );
    b.record(&format!("{name}.fx_attract_proposal_only_ms"), ms[5], "ms");
    b.record(&format!("{name}.fx_attract_per_entity_ms"), ms[6], "ms");
}

/// `normalize_wide`'s binary64 proposal alone (each component the rounded
/// quotient `|c|·2^16 / sqrt(Σ c²)`, signed), without the decision that
/// makes it exact: the floor of the method, for the bench only.
#[inline]
fn proposed_direction(d: Vec2<Fpx16_16>) -> Vec2<Fpx16_16> {
    let (x, y) = (i64::from(d.x.to_raw()), i64::from(d.y.to_raw()));
    let root = ((x * x + y * y) as u64 as f64).sqrt();
    let q = |c: i64| {
        // Rounded by adding 2^52 (`round_ties_even` is a libm call on
        // baseline x86-64).
        let q = (c.unsigned_abs() << 16) as f64 / root + 4_503_599_627_370_496.0;
        let r = q.to_bits().wrapping_sub(4_503_599_627_370_496f64.to_bits()) as i32;
        Fpx16_16::from_raw(if c < 0 { -r } else { r })
    };
    Vec2::new(q(x), q(y))
}
