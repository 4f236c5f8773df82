//! Parsing the `laige-detcheck` binary's output (the format is
//! `laige_detcheck::report`).

use anyhow::{Context, bail};

/// What the binary says about its build.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildLine {
    pub debug_assertions: bool,
    pub overflow_checks: bool,
    pub features: String,
}

/// How the replay playback ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayField {
    Verified(u64),
    Diverged(u64),
    Skipped,
}

/// One backend's run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    pub backend: String,
    pub platform: String,
    pub mode: String,
    pub ticks: u64,
    pub final_hash: u64,
    pub digest: u64,
    /// The hash of the recorded replay's bytes.
    pub recording: u64,
    /// The hash of every checkpoint's encoded snapshot bytes.
    pub snapshots: u64,
    pub replay: ReplayField,
    pub perturb: Option<u64>,
    pub checkpoints: Vec<(u64, u64)>,
}

/// A whole output.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub build: BuildLine,
    pub runs: Vec<RunLine>,
}

fn fields(line: &str) -> impl Iterator<Item = (&str, &str)> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
}

fn get<'a>(line: &'a str, key: &str) -> anyhow::Result<&'a str> {
    fields(line)
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
        .with_context(|| format!("no `{key}=` in `{line}`"))
}

pub fn parse_hex(v: &str) -> anyhow::Result<u64> {
    let digits = v
        .strip_prefix("0x")
        .with_context(|| format!("`{v}` is not 0x-hex"))?;
    u64::from_str_radix(digits, 16).with_context(|| format!("`{v}` is not 0x-hex"))
}

fn parse_bool(v: &str) -> anyhow::Result<bool> {
    match v {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => bail!("`{v}` is not a bool"),
    }
}

/// Parses the binary's stdout.
pub fn parse(text: &str) -> anyhow::Result<Output> {
    let mut lines = text.lines();
    match lines.next() {
        Some("detcheck-output 1") => {}
        other => bail!("not detcheck output version 1 (first line {other:?})"),
    }
    let mut out = Output::default();
    for line in lines {
        let kind = line.split_whitespace().next().unwrap_or("");
        match kind {
            "build" => {
                out.build = BuildLine {
                    debug_assertions: parse_bool(get(line, "debug_assertions")?)?,
                    overflow_checks: parse_bool(get(line, "overflow_checks")?)?,
                    features: get(line, "features")?.to_owned(),
                };
            }
            "run" => {
                let replay = get(line, "replay")?;
                let replay = if replay == "skipped" {
                    ReplayField::Skipped
                } else if let Some(n) = replay.strip_prefix("verified:") {
                    ReplayField::Verified(n.parse()?)
                } else if let Some(t) = replay.strip_prefix("diverged:") {
                    ReplayField::Diverged(t.parse()?)
                } else {
                    bail!("bad replay field `{replay}`");
                };
                let perturb = match get(line, "perturb")? {
                    "none" => None,
                    t => Some(t.parse()?),
                };
                out.runs.push(RunLine {
                    backend: get(line, "backend")?.to_owned(),
                    platform: get(line, "platform")?.to_owned(),
                    mode: get(line, "mode")?.to_owned(),
                    ticks: get(line, "ticks")?.parse()?,
                    final_hash: parse_hex(get(line, "final")?)?,
                    digest: parse_hex(get(line, "digest")?)?,
                    recording: parse_hex(get(line, "recording")?)?,
                    snapshots: parse_hex(get(line, "snapshots")?)?,
                    replay,
                    perturb,
                    checkpoints: Vec::new(),
                });
            }
            "checkpoint" => {
                let backend = get(line, "backend")?;
                let run = out
                    .runs
                    .iter_mut()
                    .rev()
                    .find(|r| r.backend == backend)
                    .context("a checkpoint before its run line")?;
                run.checkpoints
                    .push((get(line, "tick")?.parse()?, parse_hex(get(line, "hash")?)?));
            }
            "" => {}
            other => bail!("unknown line kind `{other}`"),
        }
    }
    if out.runs.is_empty() {
        bail!("no run in the output");
    }
    Ok(out)
}
