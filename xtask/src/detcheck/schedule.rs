//! Building and running at once. The builds go one cargo invocation at a
//! time on the calling thread (cargo uses every core itself); each binary
//! is handed to the runs as soon as cargo reports it, so a slow run (a
//! debug build, an emulated target) goes on while the next build compiles.
//! While cargo builds, one run at a time goes beside it; once the builds
//! are done, `workers` at a time. Longest runs first.

use std::collections::VecDeque;
use std::io::{BufRead as _, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use anyhow::Context;

use super::matrix::{self, Variant};
use super::{Done, Job, Kind, Progress, run_job};

/// A build's time in seconds, or why it failed.
pub type BuildTime = Result<f64, String>;

/// One cargo invocation: variants (one, or every cross target of one
/// build), or the math suites of every suite target.
enum Step {
    Variants(Vec<usize>),
    Suites,
}

/// What [`build_and_run`] did.
pub struct Outcome {
    /// Per variant.
    pub built: Vec<BuildTime>,
    /// Per math suite (the order of `suites`).
    pub suite_built: Vec<BuildTime>,
    pub done: Vec<Done>,
    /// Seconds from the start until the last build ended.
    pub build_secs: f64,
    /// Seconds from the start until the first run started.
    pub first_run_secs: Option<f64>,
    /// Run processes at a time once the builds are done.
    pub workers: usize,
}

/// The order of the builds: the host's debug builds (their runs are the
/// longest of the host), every cross target in one invocation (emulated
/// runs are the longest of all), the math suites (their runs, under QEMU
/// and Node, are the longest jobs: they go beside the host's optimized
/// builds instead of after every build), the host's optimized builds
/// (their runs take seconds).
fn steps(variants: &[Variant], with_suites: bool) -> Vec<Step> {
    let host = |debug: bool| {
        variants
            .iter()
            .enumerate()
            .filter(move |(_, v)| v.target.triple.is_none() && v.build.release != debug)
            .map(|(i, _)| Step::Variants(vec![i]))
    };
    let mut out: Vec<Step> = host(true).collect();
    let mut cross_builds: Vec<&str> = Vec::new();
    for v in variants.iter().filter(|v| v.target.triple.is_some()) {
        if !cross_builds.contains(&v.build.name) {
            cross_builds.push(v.build.name);
        }
    }
    for name in cross_builds {
        out.push(Step::Variants(
            variants
                .iter()
                .enumerate()
                .filter(|(_, v)| v.target.triple.is_some() && v.build.name == name)
                .map(|(i, _)| i)
                .collect(),
        ));
    }
    if with_suites {
        out.push(Step::Suites);
    }
    out.extend(host(false));
    out
}

/// The run queue, fed by the builds.
struct Queue {
    jobs: VecDeque<Job>,
    building: bool,
}

struct Shared<'a> {
    variants: &'a [Variant],
    queue: Mutex<Queue>,
    ready: Condvar,
    done: Mutex<Vec<Done>>,
    first_run: Mutex<Option<Instant>>,
    progress: &'a Progress,
}

impl Shared<'_> {
    /// Queues `jobs`, keeping the longest first.
    fn push(&self, jobs: Vec<Job>) {
        if let Ok(mut q) = self.queue.lock() {
            q.jobs.extend(jobs);
            let vs = self.variants;
            q.jobs
                .make_contiguous()
                .sort_by_key(|j| std::cmp::Reverse(weight(vs, j)));
        }
        self.ready.notify_all();
    }

    /// The next job for worker `w`, waiting for one; `None` when the
    /// builds are done and nothing is left. Only worker 0 runs while
    /// cargo builds.
    fn next(&self, w: usize) -> Option<Job> {
        let mut q = self.queue.lock().ok()?;
        loop {
            if w == 0 || !q.building {
                if let Some(job) = q.jobs.pop_front() {
                    return Some(job);
                }
                if !q.building {
                    return None;
                }
            }
            q = self.ready.wait(q).ok()?;
        }
    }

    fn builds_done(&self) {
        if let Ok(mut q) = self.queue.lock() {
            q.building = false;
        }
        self.ready.notify_all();
    }

    fn work(&self, w: usize) {
        while let Some(job) = self.next(w) {
            if let Ok(mut first) = self.first_run.lock() {
                first.get_or_insert_with(Instant::now);
            }
            let d = run_job(self.variants, &job);
            let ok = match d.kind {
                Kind::MathSuite => d.tests.is_ok(),
                _ => d.result.is_ok(),
            };
            self.progress.step(&format!(
                "ran {} {} in {:.1} s{}",
                self.variants[d.variant].label(),
                match d.kind {
                    Kind::MathSuite => "math test suite".to_owned(),
                    Kind::Control => format!("control {}", d.label),
                    Kind::Scenario => d.label.clone(),
                },
                d.secs,
                if ok { "" } else { ": FAILED" }
            ));
            if let Ok(mut v) = self.done.lock() {
                v.push(d);
            }
        }
    }
}

/// How long a job is expected to take, relatively: a math suite or an
/// emulated run ≫ a debug run ≫ an optimized native run.
fn weight(variants: &[Variant], j: &Job) -> u8 {
    let v = &variants[j.variant];
    match (j.kind, v.target.how.starts_with("QEMU"), v.build.release) {
        (Kind::MathSuite, _, _) => 4,
        (_, true, _) => 3,
        (_, false, false) => 2,
        (_, false, true) => u8::from(v.target.triple.is_some()),
    }
}

/// Runs `c` (a cargo command with `--message-format=json*`), calling
/// `artifact(executable path, elapsed seconds, the message)` for each
/// artifact it reports (the path `None` for a library), as it reports it;
/// whether cargo succeeded.
fn cargo_json(
    mut c: Command,
    mut artifact: impl FnMut(Option<PathBuf>, f64, &serde_json::Value),
) -> anyhow::Result<std::process::ExitStatus> {
    let t = Instant::now();
    let mut child = c.stdout(Stdio::piped()).spawn().context("starting cargo")?;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if msg["reason"] != "compiler-artifact" {
                continue;
            }
            artifact(
                msg["executable"].as_str().map(PathBuf::from),
                t.elapsed().as_secs_f64(),
                &msg,
            );
        }
    }
    child.wait().context("waiting for cargo")
}

/// Builds every variant and math suite and runs `jobs_of(variant)` for
/// each built variant and a [`Kind::MathSuite`] job for each built suite,
/// the runs beside the builds (module docs).
pub fn build_and_run(
    variants: &[Variant],
    suites: &[usize],
    jobs_of: impl Fn(usize) -> Vec<Job>,
    progress: &Progress,
) -> anyhow::Result<Outcome> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let started = Instant::now();
    let shared = Shared {
        variants,
        queue: Mutex::new(Queue {
            jobs: VecDeque::new(),
            building: true,
        }),
        ready: Condvar::new(),
        done: Mutex::new(Vec::new()),
        first_run: Mutex::new(None),
        progress,
    };
    let mut built: Vec<BuildTime> = vec![Err("not built".to_owned()); variants.len()];
    let mut suite_built: Vec<BuildTime> = vec![Err("not built".to_owned()); suites.len()];
    let result = std::thread::scope(|s| {
        for w in 0..workers {
            let shared = &shared;
            s.spawn(move || shared.work(w));
        }
        let r = build_steps(
            variants,
            suites,
            &jobs_of,
            &shared,
            &mut built,
            &mut suite_built,
        );
        // Whatever happened, the workers must end (the scope joins them).
        shared.builds_done();
        r
    });
    let build_secs = result?;
    let first_run_secs = shared
        .first_run
        .into_inner()
        .ok()
        .flatten()
        .map(|t| t.duration_since(started).as_secs_f64());
    Ok(Outcome {
        built,
        suite_built,
        done: shared.done.into_inner().unwrap_or_default(),
        build_secs,
        first_run_secs,
        workers,
    })
}

/// The builds, in [`steps`] order; seconds until the last one ended.
fn build_steps(
    variants: &[Variant],
    suites: &[usize],
    jobs_of: &impl Fn(usize) -> Vec<Job>,
    shared: &Shared<'_>,
    built: &mut [BuildTime],
    suite_built: &mut [BuildTime],
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let p = shared.progress;
    for step in steps(variants, !suites.is_empty()) {
        match step {
            Step::Variants(members) => {
                let first = &variants[members[0]];
                let triples: Vec<&str> = members
                    .iter()
                    .filter_map(|&i| variants[i].target.triple)
                    .collect();
                let joint = if members.len() > 1 {
                    format!(" (one cargo build of {} targets)", members.len())
                } else {
                    String::new()
                };
                let status = cargo_json(first.command(&triples)?, |exe, secs, _msg| {
                    let Some(exe) = exe else { return };
                    // The variant whose binary this is: the only one, or
                    // the cross target named in the path.
                    let Some(&i) = members.iter().find(|&&i| {
                        members.len() == 1
                            || variants[i]
                                .target
                                .triple
                                .is_some_and(|t| exe.components().any(|c| c.as_os_str() == t))
                    }) else {
                        return;
                    };
                    let v = &variants[i];
                    let copied = v.binary();
                    let copy = copied
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|()| std::fs::copy(&exe, &copied));
                    built[i] = copy
                        .map(|_| secs)
                        .map_err(|e| format!("copying {}: {e}", exe.display()));
                    p.step(&format!(
                        "built {} ({}) in {secs:.1} s{joint}{}",
                        v.label(),
                        v.build.flags,
                        if built[i].is_ok() { "" } else { ": FAILED" }
                    ));
                    if built[i].is_ok() {
                        shared.push(jobs_of(i));
                    }
                })?;
                for &i in &members {
                    if built[i].as_ref().is_err_and(|e| e == "not built") {
                        built[i] = Err(format!("cargo build failed ({status})"));
                        p.step(&format!(
                            "built {}: FAILED ({status}); its runs are skipped",
                            variants[i].label()
                        ));
                    }
                }
            }
            Step::Suites => {
                let triples: Vec<&str> = suites
                    .iter()
                    .filter_map(|&i| variants[i].target.triple)
                    .collect();
                let mut last = vec![0.0_f64; triples.len()];
                // Per triple, a test executable or an optimized dependency
                // built without the suite's profile settings (they did not
                // take effect), and the optimized dependencies reported.
                let mut unoptimized: Vec<Option<String>> = vec![None; triples.len()];
                let mut deps_seen = vec![0_usize; triples.len()];
                let mut status = None;
                for c in matrix::math_suite(&triples, true) {
                    status = Some(cargo_json(c, |exe, secs, msg| {
                        let profile = &msg["profile"];
                        let test = profile["test"].as_bool().unwrap_or(false);
                        let dep = crate::run::OPTIMIZED_DEPS
                            .contains(&msg["target"]["name"].as_str().unwrap_or(""));
                        let path = match exe {
                            Some(exe) if test => exe,
                            None if dep => match msg["filenames"][0].as_str() {
                                Some(f) => PathBuf::from(f),
                                None => return,
                            },
                            _ => return,
                        };
                        // Host-side units have no triple in their path.
                        let Some(k) = triples
                            .iter()
                            .position(|t| path.components().any(|c| c.as_os_str() == *t))
                        else {
                            return;
                        };
                        if test {
                            last[k] = secs;
                        } else {
                            deps_seen[k] += 1;
                        }
                        if !suite_profile_applied(profile) {
                            unoptimized[k] = Some(format!(
                                "{} was built with {profile} instead of {}",
                                path.display(),
                                matrix::MATH_SUITE_FLAGS
                            ));
                        }
                    })?);
                }
                for (k, seen) in deps_seen.iter().enumerate() {
                    if *seen < crate::run::OPTIMIZED_DEPS.len() && unoptimized[k].is_none() {
                        unoptimized[k] = Some(format!(
                            "cargo reported no {} artifact for {}",
                            crate::run::OPTIMIZED_DEPS.join(", "),
                            triples[k]
                        ));
                    }
                }
                let ok = status.is_some_and(|s| s.success());
                for (k, t) in triples.iter().enumerate() {
                    suite_built[k] = match (ok, unoptimized[k].take()) {
                        (true, None) => Ok(last[k]),
                        (true, Some(why)) => Err(format!("BUILD FLAGS NOT APPLIED: {why}")),
                        (false, _) => Err(format!(
                            "cargo test --no-run failed ({})",
                            status.map_or_else(|| "-".to_owned(), |s| s.to_string())
                        )),
                    };
                    p.step(&format!(
                        "built {t} math test suite in {:.1} s (one cargo build of {} targets' suites){}",
                        last[k],
                        triples.len(),
                        match &suite_built[k] {
                            Ok(_) => String::new(),
                            Err(e) => format!(": FAILED: {e}"),
                        }
                    ));
                }
                if ok {
                    shared.push(
                        suites
                            .iter()
                            .zip(&*suite_built)
                            .filter(|(_, b)| b.is_ok())
                            .map(|(&i, _)| Job {
                                variant: i,
                                args: Vec::new(),
                                kind: Kind::MathSuite,
                            })
                            .collect(),
                    );
                }
            }
        }
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Whether a test executable's profile (cargo's `profile` of its
/// `compiler-artifact` message) is the math suites' one: opt-level 3 with
/// debug assertions and overflow checks. The same for the optimized
/// dependencies ([`crate::run::OPTIMIZED_DEPS`]).
pub(super) fn suite_profile_applied(profile: &serde_json::Value) -> bool {
    profile["opt_level"] == "3"
        && profile["debug_assertions"] == true
        && profile["overflow_checks"] == true
}
