//! `cargo xtask detcheck`: build the detcheck scenario (crates/laige-detcheck)
//! under a matrix of builds, run it on both math backends, and compare every
//! state hash with the other builds and with the known answers committed in
//! `crates/laige-detcheck/known_answers.toml`.
//!
//! ```text
//! cargo xtask detcheck [--quick] [--bless] [--builds NAME,NAME]
//! ```
//!
//! * `--quick`: 10 000 ticks instead of 100 000 (its own known answers).
//! * `--bless`: rewrite the known answers of the mode from this run (every
//!   build must agree with every other and every replay verify) and print
//!   the diff — a change that alters results updates the file, visibly.
//! * `--builds`: a subset of the matrix (`debug,release,…`).
//!
//! A negative control runs too: the release binary with `--perturb` (one
//! entity nudged by 2^-16 at the middle tick) must be reported as a
//! mismatch from the first checkpoint after the nudge, and its replay must
//! diverge there — a detcheck that cannot fail fails. Exits non-zero on
//! any mismatch, missing known answer, unapplied build flag or missed
//! control.

mod known;
mod matrix;
mod output;
mod verdict;

#[cfg(test)]
mod tests;

use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, bail};

use crate::run::root;
use known::{Answer, Known, platform_key};
use matrix::{Build, MATRIX};
use output::{Output, RunLine};
use verdict::{Row, Verdict, judge, judge_control, table};

const BACKENDS: [&str; 2] = ["fixed_point_16_16", "float_pinned_32"];
/// Must equal `laige_detcheck::scenario::SCENARIO_VERSION`.
const SCENARIO_VERSION: u32 = 1;

struct Options {
    quick: bool,
    bless: bool,
    builds: Vec<Build>,
}

fn options(args: &[String]) -> anyhow::Result<Options> {
    let mut o = Options {
        quick: false,
        bless: false,
        builds: MATRIX.to_vec(),
    };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--quick" => o.quick = true,
            "--bless" => o.bless = true,
            "--builds" => {
                let list = args.get(i + 1).context("--builds needs a list")?;
                let mut picked = Vec::new();
                for name in list.split(',') {
                    let b = MATRIX.iter().find(|b| b.name == name).with_context(|| {
                        let names: Vec<_> = MATRIX.iter().map(|b| b.name).collect();
                        format!("unknown build `{name}`; accepted: {}", names.join(", "))
                    })?;
                    picked.push(*b);
                }
                o.builds = picked;
                i += 1;
            }
            other => bail!("unknown detcheck option {other}; accepted: --quick, --bless, --builds"),
        }
        i += 1;
    }
    Ok(o)
}

fn known_path() -> std::path::PathBuf {
    root().join("crates/laige-detcheck/known_answers.toml")
}

/// One scenario process to run.
struct Job {
    build: usize,
    args: Vec<String>,
    control: bool,
}

struct Done {
    build: usize,
    label: String,
    control: bool,
    secs: f64,
    result: anyhow::Result<Output>,
}

fn run_job(builds: &[Build], job: &Job) -> Done {
    let start = Instant::now();
    let bin = builds[job.build].binary();
    let result = Command::new(&bin)
        .args(&job.args)
        .output()
        .with_context(|| format!("starting {}", bin.display()))
        .and_then(|o| {
            if !o.status.success() {
                bail!(
                    "{} exited with {}: {}",
                    bin.display(),
                    o.status,
                    String::from_utf8_lossy(&o.stderr).trim()
                );
            }
            output::parse(&String::from_utf8_lossy(&o.stdout))
        });
    Done {
        build: job.build,
        label: job.args.join(" "),
        control: job.control,
        secs: start.elapsed().as_secs_f64(),
        result,
    }
}

/// Runs the jobs on `workers` threads, longest (debug) first.
fn run_jobs(builds: &[Build], jobs: Vec<Job>, workers: usize) -> Vec<Done> {
    let queue = Mutex::new(jobs.into_iter().collect::<std::collections::VecDeque<_>>());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                    let Some(job) = next else { break };
                    let d = run_job(builds, &job);
                    if let Ok(mut v) = done.lock() {
                        v.push(d);
                    }
                }
            });
        }
    });
    done.into_inner().unwrap_or_default()
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let o = options(args)?;
    let mode = if o.quick { "quick" } else { "full" };
    let started = Instant::now();
    let known_text = std::fs::read_to_string(known_path()).unwrap_or_default();
    let known = known::parse(&known_text)?;

    // 1. Build every variant (sequentially: cargo uses every core itself).
    let mut built = vec![None; o.builds.len()];
    for (i, b) in o.builds.iter().enumerate() {
        let t = Instant::now();
        println!("detcheck: building {:<18} ({})", b.name, b.flags);
        let status = b.command().status().context("starting cargo")?;
        let secs = t.elapsed().as_secs_f64();
        built[i] = Some(if status.success() {
            Ok(secs)
        } else {
            Err(format!("cargo build failed ({status})"))
        });
    }
    let build_secs = started.elapsed().as_secs_f64();

    // 2. Run: each build × backend as its own process, plus the control.
    let mode_args: Vec<String> = if o.quick {
        vec!["--quick".to_owned()]
    } else {
        Vec::new()
    };
    let mut jobs = Vec::new();
    for (i, _) in o.builds.iter().enumerate() {
        if !matches!(built[i], Some(Ok(_))) {
            continue;
        }
        for backend in BACKENDS {
            let mut a = mode_args.clone();
            a.extend(["--backend".to_owned(), backend.to_owned()]);
            jobs.push(Job {
                build: i,
                args: a,
                control: false,
            });
        }
    }
    // The control on the fastest binary built (release, else the first).
    let control_build = o
        .builds
        .iter()
        .enumerate()
        .filter(|(i, _)| matches!(built[*i], Some(Ok(_))))
        .find(|(_, b)| b.name == "release")
        .or_else(|| {
            o.builds
                .iter()
                .enumerate()
                .find(|(i, _)| matches!(built[*i], Some(Ok(_))))
        })
        .map(|(i, _)| i);
    if let Some(i) = control_build {
        let mut a = mode_args.clone();
        a.extend([
            "--backend".to_owned(),
            "all".to_owned(),
            "--perturb".to_owned(),
        ]);
        jobs.push(Job {
            build: i,
            args: a,
            control: true,
        });
    }
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let t = Instant::now();
    let mut done = run_jobs(&o.builds, jobs, workers);
    let run_secs = t.elapsed().as_secs_f64();
    done.sort_by_key(|d| (d.build, d.control));

    // 3. Judge.
    let (rows, clean) = judge_all(&o.builds, &built, &done, &known, mode);
    println!("\n{}", table(&rows));
    for d in &done {
        println!(
            "  ran {:<18} {:<40} in {:.1} s",
            o.builds[d.build].name, d.label, d.secs
        );
    }
    if let Some(f) = done
        .iter()
        .find_map(|d| d.result.as_ref().ok().map(|o| o.build.features.clone()))
    {
        let native = done
            .iter()
            .find(|d| o.builds[d.build].name == "native")
            .and_then(|d| d.result.as_ref().ok())
            .map(|o| o.build.features.clone());
        println!(
            "  target features: default build {f}; native build {}",
            native.unwrap_or_else(|| "-".to_owned())
        );
    }
    println!(
        "detcheck ({mode}, {} ticks): builds {:.1} s, runs {:.1} s ({workers} at a time), total {:.1} s",
        if o.quick { 10_000 } else { 100_000 },
        build_secs,
        run_secs,
        started.elapsed().as_secs_f64()
    );

    // 4. Bless or verdict.
    let failed: Vec<&Row> = rows.iter().filter(|r| !r.verdict.passed()).collect();
    if o.bless {
        if let Some(bad) = failed.iter().find(|r| !r.verdict.blessable()) {
            bail!(
                "not blessing: {} / {}: {} (only a known-answer change can be blessed)",
                bad.build,
                bad.backend,
                bad.verdict.text()
            );
        }
        let mut next = known.clone();
        for run in clean {
            next.entry(mode.to_owned())
                .or_default()
                .entry(run.backend.clone())
                .or_default()
                .insert(
                    platform_key(&run.backend, &run.platform),
                    Answer {
                        ticks: run.ticks,
                        checkpoints: run.checkpoints.clone(),
                    },
                );
        }
        let text = known::render(&next, SCENARIO_VERSION);
        let diff = known::diff(&known_text, &text);
        if diff.is_empty() {
            println!("detcheck --bless: known answers unchanged");
        } else {
            std::fs::write(known_path(), &text).context("writing known_answers.toml")?;
            println!("detcheck --bless: rewrote {}:", known_path().display());
            for line in diff {
                println!("  {line}");
            }
        }
        return Ok(());
    }
    if !failed.is_empty() {
        bail!(
            "detcheck: {} of {} row(s) failed (see the table)",
            failed.len(),
            rows.len()
        );
    }
    println!("detcheck: every build and backend agrees with the known answers");
    Ok(())
}

/// The rows, and the reference build's clean runs (for `--bless`).
fn judge_all<'a>(
    builds: &[Build],
    built: &[Option<Result<f64, String>>],
    done: &'a [Done],
    known: &Known,
    mode: &str,
) -> (Vec<Row>, Vec<&'a RunLine>) {
    let mut rows = Vec::new();
    // The reference: the first build in matrix order with a clean run.
    let clean_runs = |backend: &str| {
        done.iter()
            .filter(|d| !d.control)
            .filter_map(|d| d.result.as_ref().ok().map(|o| (d.build, o)))
            .flat_map(|(b, o)| o.runs.iter().map(move |r| (b, &o.build, r)))
            .filter(|(_, _, r)| r.backend == backend)
            .collect::<Vec<_>>()
    };
    let mut reference_runs = Vec::new();
    for (i, b) in builds.iter().enumerate() {
        if let Some(Err(e)) = &built[i] {
            rows.push(Row {
                build: b.name.to_owned(),
                flags: b.flags.to_owned(),
                backend: "-".to_owned(),
                final_hash: None,
                verdict: Verdict::Failed(e.clone()),
            });
        }
    }
    for backend in BACKENDS {
        let runs = clean_runs(backend);
        let reference = runs.first().map(|(b, _, r)| (builds[*b].name, *r));
        if let Some((_, r)) = reference {
            reference_runs.push(r);
        }
        for (b, build_line, run) in &runs {
            let verdict = judge(run, build_line, builds[*b].expect, reference, known, mode);
            rows.push(Row {
                build: builds[*b].name.to_owned(),
                flags: builds[*b].flags.to_owned(),
                backend: backend.to_owned(),
                final_hash: Some(run.final_hash),
                verdict,
            });
        }
    }
    for d in done {
        let name = builds[d.build].name;
        match &d.result {
            Err(e) => rows.push(Row {
                build: if d.control {
                    format!("control ({name})")
                } else {
                    name.to_owned()
                },
                flags: builds[d.build].flags.to_owned(),
                backend: "-".to_owned(),
                final_hash: None,
                verdict: Verdict::Failed(format!("{e:#}")),
            }),
            Ok(o) if d.control => {
                for run in &o.runs {
                    let clean = reference_runs
                        .iter()
                        .find(|r| r.backend == run.backend)
                        .copied();
                    rows.push(Row {
                        build: format!(
                            "control ({name}, nudged at {})",
                            run.perturb
                                .map_or_else(|| "-".to_owned(), |t| t.to_string())
                        ),
                        flags: builds[d.build].flags.to_owned(),
                        backend: run.backend.clone(),
                        final_hash: Some(run.final_hash),
                        verdict: judge_control(run, clean, known, mode),
                    });
                }
            }
            Ok(_) => {}
        }
    }
    (rows, reference_runs)
}
