//! The bench harness: timing, statistics, the report and the budget check.
//!
//! Benchmarks on shared, noisy machines: absolute times drift, ratios hold.
//! So every comparison is measured *interleaved in one run* —
//! [`Bench::interleaved`] alternates the contenders sample by sample, so a
//! burst of background load hits all of them alike — and budgets are mostly
//! ratios against a reference implementation measured beside ours.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Statistics of a set of samples (each in ns per operation).
#[derive(Clone, Debug, Serialize)]
pub struct Stats {
    /// Number of samples.
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Median (p50).
    pub median: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Every sample, sorted (for the report's distributions; not in the
    /// JSON of a `Stats`).
    #[serde(skip)]
    pub samples: Vec<f64>,
}

impl Stats {
    /// Computes the statistics of `samples` (sorted in place). An empty set
    /// gives all zeros.
    pub fn of(samples: &mut [f64]) -> Self {
        if samples.is_empty() {
            return Self {
                n: 0,
                min: 0.0,
                median: 0.0,
                p99: 0.0,
                max: 0.0,
                mean: 0.0,
                samples: Vec::new(),
            };
        }
        samples.sort_by(f64::total_cmp);
        let n = samples.len();
        let rank = |p: f64| {
            let idx = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
            samples[idx]
        };
        Self {
            n,
            min: samples[0],
            median: rank(0.5),
            p99: rank(0.99),
            max: samples[n - 1],
            mean: samples.iter().sum::<f64>() / n as f64,
            samples: samples.to_vec(),
        }
    }

    /// Statistics of a percentile computation over `u64`/`i64` nanosecond
    /// readings (lateness, latency).
    pub fn of_ns(samples: &[i64]) -> Self {
        let mut v: Vec<f64> = samples.iter().map(|&x| x as f64).collect();
        Self::of(&mut v)
    }
}

/// One measured figure in the report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Metric {
    /// The figure (unit below).
    pub value: f64,
    /// `ns`, `ms`, `x` (a ratio), `%`, `us`, `fps`, ...
    pub unit: String,
}

/// The samples behind a figure, kept for the report's pictures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Distribution {
    /// The samples' unit.
    pub unit: String,
    /// The samples, sorted; at most [`MAX_DISTRIBUTION_SAMPLES`] (evenly
    /// spaced ranks of a longer set, its minimum and maximum kept).
    pub samples: Vec<f64>,
}

/// The most samples a [`Distribution`] keeps: enough for a smooth curve,
/// small enough for the JSON report.
pub const MAX_DISTRIBUTION_SAMPLES: usize = 2000;

/// The context every bench area writes into.
pub struct Bench {
    quick: bool,
    filter: Vec<String>,
    metrics: BTreeMap<String, Metric>,
    distributions: BTreeMap<String, Distribution>,
    current_area: String,
}

impl Bench {
    /// A bench context. `quick` shortens every measurement (for CI smoke
    /// runs); `filter` keeps only the areas/metrics whose name contains one
    /// of the strings (empty: everything).
    pub fn new(quick: bool, filter: Vec<String>) -> Self {
        Self {
            quick,
            filter,
            metrics: BTreeMap::new(),
            distributions: BTreeMap::new(),
            current_area: String::new(),
        }
    }

    /// True in quick mode: areas should cut sample counts and sizes.
    pub fn quick(&self) -> bool {
        self.quick
    }

    /// Scales a count down in quick mode (never below 1).
    pub fn scaled(&self, full: usize) -> usize {
        if self.quick { (full / 10).max(1) } else { full }
    }

    /// Marks the start of an area (used by the runner).
    pub fn set_area(&mut self, area: &str) {
        self.current_area = area.to_owned();
    }

    /// Whether the area or a metric name passes the filter.
    pub fn wants(&self, name: &str) -> bool {
        self.filter.is_empty() || self.filter.iter().any(|f| name.contains(f.as_str()))
    }

    /// Records one figure under `name` (convention: `area.thing.figure`).
    pub fn record(&mut self, name: &str, value: f64, unit: &str) {
        eprintln!("  {name:<58} {value:>14.3} {unit}");
        self.metrics.insert(
            name.to_owned(),
            Metric {
                value,
                unit: unit.to_owned(),
            },
        );
    }

    /// Keeps the samples behind a figure under `name`, scaled by `scale`
    /// into `unit` (e.g. ns samples as ms: `1e-6`), for the report's
    /// distribution pictures.
    pub fn record_distribution(&mut self, name: &str, samples: &[f64], scale: f64, unit: &str) {
        let mut sorted: Vec<f64> = samples.iter().map(|v| v * scale).collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        if n > MAX_DISTRIBUTION_SAMPLES {
            let last = MAX_DISTRIBUTION_SAMPLES - 1;
            sorted = (0..=last).map(|i| sorted[i * (n - 1) / last]).collect();
        }
        self.distributions.insert(
            name.to_owned(),
            Distribution {
                unit: unit.to_owned(),
                samples: sorted,
            },
        );
    }

    /// Records `ours / theirs` as a ratio metric and returns it.
    pub fn ratio(&mut self, name: &str, ours: f64, theirs: f64) -> f64 {
        let r = if theirs > 0.0 {
            ours / theirs
        } else {
            f64::INFINITY
        };
        self.record(name, r, "x");
        r
    }

    /// Records the median and p99 of `stats` as `name.median` / `name.p99`.
    pub fn record_stats(&mut self, name: &str, stats: &Stats, unit: &str) {
        self.record(&format!("{name}.median"), stats.median, unit);
        self.record(&format!("{name}.p99"), stats.p99, unit);
    }

    /// The metrics recorded so far.
    pub fn metrics(&self) -> &BTreeMap<String, Metric> {
        &self.metrics
    }

    /// Measures contenders interleaved: `samples` rounds, each round runs
    /// every contender once (in rotating order), and each run performs
    /// `ops` operations. Returns per-contender stats in ns per operation.
    ///
    /// Each contender returns a value that is passed through `black_box`, so
    /// its work cannot be optimized away.
    pub fn interleaved<R>(
        &self,
        samples: usize,
        ops: u64,
        contenders: &mut [&mut dyn FnMut() -> R],
    ) -> Vec<Stats> {
        let mut times = self.interleaved_rounds(samples, ops, contenders);
        times.iter_mut().map(|t| Stats::of(t)).collect()
    }

    /// [`interleaved`](Self::interleaved)'s samples in round order, one
    /// vector per contender (ns per operation): what [`paired_ratio`]
    /// needs.
    pub fn interleaved_rounds<R>(
        &self,
        samples: usize,
        ops: u64,
        contenders: &mut [&mut dyn FnMut() -> R],
    ) -> Vec<Vec<f64>> {
        let k = contenders.len();
        let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(samples); k];
        // Warm-up: one run each.
        for c in contenders.iter_mut() {
            black_box(c());
        }
        for round in 0..samples {
            for j in 0..k {
                let idx = (round + j) % k;
                let start = Instant::now();
                black_box((contenders[idx])());
                let ns = start.elapsed().as_nanos() as f64;
                times[idx].push(ns / ops as f64);
            }
        }
        times
    }

    /// Measures one closure: `samples` runs of `ops` operations each.
    pub fn measure<R>(&self, samples: usize, ops: u64, mut f: impl FnMut() -> R) -> Stats {
        let mut one: [&mut dyn FnMut() -> R; 1] = [&mut f];
        self.interleaved(samples, ops, &mut one).remove(0)
    }

    /// Finishes the run: the report as JSON.
    pub fn into_report(self, elapsed: Duration) -> Report {
        Report {
            machine: Machine::read(),
            quick: self.quick,
            elapsed_s: elapsed.as_secs_f64(),
            metrics: self.metrics,
            distributions: self.distributions,
        }
    }
}

/// What the machine was (benchmarks are only comparable on the same one).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    /// Logical CPUs.
    pub cpus: usize,
    /// The CPU model name from /proc/cpuinfo, if readable.
    pub cpu_model: String,
    /// The vector unit the hot loops ran on (`VectorUnit::widest`, within
    /// `--vector-unit`); empty in a report from before it was recorded.
    #[serde(default)]
    pub vector_unit: String,
}

impl Machine {
    fn read() -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_owned())
            })
            .unwrap_or_else(|| "unknown".to_owned());
        let vector_unit = laige_core::VectorUnit::widest().name().to_owned();
        Self {
            cpus,
            cpu_model,
            vector_unit,
        }
    }
}

/// The machine-readable report (`--out FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Report {
    /// The machine the figures were measured on.
    pub machine: Machine,
    /// Whether this was a quick (shortened) run.
    pub quick: bool,
    /// Wall time of the whole run in seconds.
    pub elapsed_s: f64,
    /// Every figure, by name.
    pub metrics: BTreeMap<String, Metric>,
    /// The samples behind some figures, by name (absent in reports written
    /// before distributions were kept).
    #[serde(default)]
    pub distributions: BTreeMap<String, Distribution>,
}

/// One budget from `budgets.json`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// The figure must be at most this.
    #[serde(default)]
    pub max: Option<f64>,
    /// The figure must be at least this.
    #[serde(default)]
    pub min: Option<f64>,
    /// The unit, for the reader (must match the metric's).
    pub unit: String,
    /// Where the number comes from.
    pub why: String,
    /// The figure of the reference implementation measured beside this
    /// one (drawn as the anchor in the report's picture); a ratio budget
    /// (unit `x`) is anchored at 1.0 without it.
    #[serde(default)]
    pub anchor: Option<String>,
}

/// `budgets.json`: metric name → budget.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// The budgets by metric name.
    pub budgets: BTreeMap<String, Budget>,
}

/// A budget's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within budget.
    Pass,
    /// Over (or under) budget.
    Fail,
    /// Not measured in this run (filtered out).
    Skipped,
}

/// One row of the budget check: metric, measured value (if measured), the
/// bound as text, the verdict, and the budget's `why`.
pub type CheckRow = (String, Option<f64>, String, Verdict, String);

/// The median over rounds of `ours[r] / theirs[r]`: each round's two runs
/// saw the same machine state (the same neighbours' load, the same
/// frequency), so the ratio of one round cancels the load drift between
/// rounds that a ratio of two medians — each taken over its own rounds —
/// keeps. 0 for no rounds; rounds where `theirs` is 0 are left out.
#[must_use]
pub fn paired_ratio(ours: &[f64], theirs: &[f64]) -> f64 {
    let mut ratios: Vec<f64> = ours
        .iter()
        .zip(theirs)
        .filter(|(_, t)| **t > 0.0)
        .map(|(o, t)| o / t)
        .collect();
    Stats::of(&mut ratios).median
}

/// Compares the report with the budgets; returns one row per budget.
pub fn check(report: &Report, budgets: &Budgets) -> Vec<CheckRow> {
    budgets
        .budgets
        .iter()
        .map(|(name, b)| {
            let bound = match (b.min, b.max) {
                (Some(lo), Some(hi)) => format!("{lo} ..= {hi} {}", b.unit),
                (Some(lo), None) => format!(">= {lo} {}", b.unit),
                (None, Some(hi)) => format!("<= {hi} {}", b.unit),
                (None, None) => "(no bound)".to_owned(),
            };
            match report.metrics.get(name) {
                None => (name.clone(), None, bound, Verdict::Skipped, b.why.clone()),
                Some(m) => {
                    let ok = b.max.is_none_or(|hi| m.value <= hi)
                        && b.min.is_none_or(|lo| m.value >= lo)
                        && m.unit == b.unit;
                    let v = if ok { Verdict::Pass } else { Verdict::Fail };
                    (name.clone(), Some(m.value), bound, v, b.why.clone())
                }
            }
        })
        .collect()
}

/// The calling thread's on-CPU time in ns, from its
/// `/proc/thread-self/schedstat` (opened once on that thread; `read_at(0)`
/// makes the kernel regenerate the line on every read: two syscalls, no
/// open/close per reading).
pub struct ThreadCpu(Option<std::fs::File>);

impl ThreadCpu {
    /// Opens the calling thread's `schedstat` (read it on that thread
    /// only); every reading is `None` where it does not exist.
    pub fn open() -> Self {
        Self(std::fs::File::open("/proc/thread-self/schedstat").ok())
    }

    /// The on-CPU time including the running slice: the kernel folds the
    /// current slice into `schedstat` only at scheduling events, so a thread
    /// reading its own value would see its spin charged to whatever runs
    /// after the next switch. `sched_yield` is such an event (the fair
    /// scheduler's yield updates the running task's runtime first); it is
    /// called outside the measured span (after a frame's lateness was
    /// taken, after a seek's wall time), and costs every contender the
    /// same ~1 µs.
    pub fn fresh_ns(&self) -> Option<u64> {
        std::thread::yield_now();
        self.ns()
    }

    fn ns(&self) -> Option<u64> {
        let mut buf = [0u8; 128];
        // A positional read: `&self` suffices (the file opens on Linux only).
        #[cfg(unix)]
        let n = std::os::unix::fs::FileExt::read_at(self.0.as_ref()?, &mut buf, 0).ok()?;
        #[cfg(windows)]
        let n = std::os::windows::fs::FileExt::seek_read(self.0.as_ref()?, &mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        text.split_whitespace().next()?.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_use_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Stats::of(&mut v);
        assert_eq!(s.median, 50.0);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 100.0);
        assert_eq!(s.n, 100);
    }

    #[test]
    fn paired_ratio_is_the_median_of_each_rounds_ratio() {
        // Round 2 ran under load on both sides: its ratio is still 2.
        let ours = [2.0, 20.0, 2.2, 1.8];
        let theirs = [1.0, 10.0, 1.0, 1.0];
        assert_eq!(paired_ratio(&ours, &theirs), 2.0);
        assert_eq!(paired_ratio(&[], &[]), 0.0);
        assert_eq!(paired_ratio(&[1.0], &[0.0]), 0.0);
    }

    #[test]
    fn budget_check_passes_fails_and_skips() {
        let mut metrics = BTreeMap::new();
        metrics.insert(
            "a".to_owned(),
            Metric {
                value: 1.0,
                unit: "x".into(),
            },
        );
        metrics.insert(
            "b".to_owned(),
            Metric {
                value: 3.0,
                unit: "x".into(),
            },
        );
        let report = Report {
            machine: Machine {
                cpus: 1,
                cpu_model: "t".into(),
                vector_unit: "portable".into(),
            },
            quick: false,
            elapsed_s: 0.0,
            metrics,
            distributions: BTreeMap::new(),
        };
        let budgets: Budgets = serde_json::from_str(
            r#"{"budgets": {
                "a": {"max": 1.25, "unit": "x", "why": "t"},
                "b": {"max": 2.0, "unit": "x", "why": "t"},
                "c": {"min": 1.0, "unit": "x", "why": "t"}
            }}"#,
        )
        .unwrap();
        let rows = check(&report, &budgets);
        let verdicts: Vec<Verdict> = rows.iter().map(|r| r.3).collect();
        assert_eq!(verdicts, [Verdict::Pass, Verdict::Fail, Verdict::Skipped]);
    }
}
