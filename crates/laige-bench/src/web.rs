//! Bench area `web`: the demo's tick in Chromium (V8 running the wasm32
//! module of `cargo xtask web`) beside the same tick natively, in one run
//! on the same machine, per math backend, with and without wasm SIMD128.
//!
//! Each of `ROUNDS` rounds runs, in this order: the native demo
//! (`laige_demo::tick_bench`, in-process, release) on each backend, then
//! one `node xtask/web/bench.mjs` (headless Chromium, a fresh page per
//! site) running the same tick bench in the page as served (`target/web`,
//! built with wasm SIMD128) and the plain page (`target/web-plain`, rustc's
//! default wasm32 features) on each backend. Every run is
//! the demo with 10k entities for `TICKS` ticks, headless and unpaced, no
//! input; its figure is the engine profiler's median tick (system
//! dispatch). The pages are served cross-origin isolated, so the page's
//! clock (`performance.now()`) ticks in 5 µs steps.
//!
//! - `web.tick.<fx|fp>.10k.{native,chromium,chromium_plain}_ms`: the
//!   median over the rounds of the runs' median tick, ms.
//! - `web.tick.<fx|fp>.10k.chromium_vs_native`: chromium (the page as
//!   served) ÷ native.
//! - `web.tick.<fx|fp>.10k.simd128_vs_plain`: the page ÷ the plain page
//!   (below 1: SIMD128 is faster).
//! - `web.tick.<fx|fp>.10k.same_bits`: 1 when every run of every round —
//!   native, the page, the plain page — ended on the same state hash,
//!   else 0 (a SIMD128 build must keep the bits).
//! - `web.page.first_present_ms`: the live demo page (10k sprites, the
//!   site as served, a fresh page each round): from navigation start to its
//!   first presented frame (loading, compiling and instantiating the
//!   module, the engine's setup, the first frame drawn), median over the
//!   rounds.
//! - `web.page.fps`: the same page's frames per second under SwiftShader
//!   over 3 s after its first 60 frames, median over the rounds (reported).
//! - `web.wasm.opt_kib` / `web.wasm.gzip_kib`: the page's module as
//!   served (after `wasm-opt`) and gzipped (`gzip -9`), KiB.
//!
//! Needs node with `xtask/web/node_modules` (playwright-core), Chromium
//! and the two sites, which `cargo xtask bench` builds first (`cargo
//! xtask web`, `cargo xtask web --plain`); without them the area is
//! skipped with a note (no figure recorded).

#![allow(
    clippy::cast_precision_loss,
    reason = "figures in a report: ns and byte counts to f64"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use laige_demo::tick_bench;
use laige_engine::MathBackend;

use crate::harness::{Bench, Stats};

/// Entities of the measured demo.
const ENTITIES: u32 = 10_000;
/// The site as served (SIMD128) and the plain site, relative to the
/// workspace root.
const SITES: [&str; 2] = ["target/web", "target/web-plain"];

/// Runs the area.
pub fn run(b: &mut Bench) {
    if !b.wants("web") {
        return;
    }
    let root = std::env::current_dir().unwrap_or_default();
    let missing: Vec<&str> = SITES
        .iter()
        .copied()
        .filter(|s| !root.join(s).join("laige-demo_bg.wasm").is_file())
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "  web: skipped: no site at {} (`cargo xtask bench` builds them: `cargo xtask web`, \
             `cargo xtask web --plain`)",
            missing.join(", ")
        );
        return;
    }
    if let Err(why) = ticks_side_by_side(b, &root) {
        eprintln!("  web: skipped: {why}");
    }
    sizes(b, &root.join(SITES[0]).join("laige-demo_bg.wasm"));
}

/// One backend's figures over the rounds.
#[derive(Default)]
struct Side {
    native: Vec<f64>,
    page: Vec<f64>,
    plain: Vec<f64>,
    hashes: Vec<String>,
}

fn ticks_side_by_side(b: &mut Bench, root: &Path) -> Result<(), String> {
    let rounds = if b.quick() { 1 } else { 5 };
    let ticks: u64 = if b.quick() { 60 } else { 300 };
    let backends = [
        ("fx", MathBackend::FixedPoint16_16),
        ("fp", MathBackend::FloatPinned32),
    ];
    let mut sides: [Side; 2] = Default::default();
    let (mut first_present, mut fps) = (Vec::new(), Vec::new());
    let ms = |ns: u64| ns as f64 / 1e6;
    // A short run first on each backend, as each page does before its
    // measured runs (caches, the allocator, the page's tier-up).
    for (_, backend) in backends {
        tick_bench::run(backend, 1000, 60).map_err(|e| e.to_string())?;
    }
    for _ in 0..rounds {
        for (side, (_, backend)) in sides.iter_mut().zip(backends) {
            let run = tick_bench::run(backend, ENTITIES, ticks).map_err(|e| e.to_string())?;
            side.native.push(ms(run.tick_p50_ns));
            side.hashes.push(format!("{:016x}", run.state_hash));
        }
        for line in browser_round(root, ticks)? {
            let v: serde_json::Value = serde_json::from_str(&line)
                .map_err(|e| format!("bench.mjs printed {line:?}: {e}"))?;
            if v["live"].as_bool() == Some(true) {
                first_present.extend(v["first_present_ms"].as_f64());
                fps.extend(v["fps"].as_f64());
                continue;
            }
            let backend: MathBackend = v["backend"]
                .as_str()
                .unwrap_or_default()
                .parse()
                .map_err(|e: laige_engine::Error| e.to_string())?;
            let Some(side) = backends
                .iter()
                .position(|(_, b)| *b == backend)
                .map(|i| &mut sides[i])
            else {
                continue;
            };
            let p50 = v["tick_p50_ns"].as_u64().unwrap_or(0);
            match v["site"].as_str() {
                Some(s) if s == SITES[0] => side.page.push(ms(p50)),
                Some(s) if s == SITES[1] => side.plain.push(ms(p50)),
                _ => continue,
            }
            side.hashes
                .push(v["state_hash"].as_str().unwrap_or_default().to_owned());
        }
    }
    if !first_present.is_empty() {
        b.record(
            "web.page.first_present_ms",
            Stats::of(&mut first_present).median,
            "ms",
        );
    }
    if !fps.is_empty() {
        b.record("web.page.fps", Stats::of(&mut fps).median, "fps");
    }
    for ((label, _), side) in backends.iter().zip(&mut sides) {
        let name = format!("web.tick.{label}.{}k", ENTITIES / 1000);
        let native = Stats::of(&mut side.native).median;
        let page = Stats::of(&mut side.page).median;
        let plain = Stats::of(&mut side.plain).median;
        b.record(&format!("{name}.native_ms"), native, "ms");
        b.record(&format!("{name}.chromium_ms"), page, "ms");
        b.record(&format!("{name}.chromium_plain_ms"), plain, "ms");
        b.ratio(&format!("{name}.chromium_vs_native"), page, native);
        b.ratio(&format!("{name}.simd128_vs_plain"), page, plain);
        let same = side.hashes.windows(2).all(|w| w[0] == w[1]) && side.hashes.len() == 3 * rounds;
        b.record(
            &format!("{name}.same_bits"),
            if same { 1.0 } else { 0.0 },
            "bool",
        );
    }
    Ok(())
}

/// One `bench.mjs` round over both sites: its JSON lines.
fn browser_round(root: &Path, ticks: u64) -> Result<Vec<String>, String> {
    let out = Command::new("node")
        .current_dir(root)
        .arg("xtask/web/bench.mjs")
        .arg(ENTITIES.to_string())
        .arg(ticks.to_string())
        .args(SITES)
        .output()
        .map_err(|e| format!("running node xtask/web/bench.mjs: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "xtask/web/bench.mjs failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(str::to_owned)
        .collect())
}

/// The served module's size, raw and gzipped.
fn sizes(b: &mut Bench, wasm: &PathBuf) {
    let Ok(meta) = std::fs::metadata(wasm) else {
        return;
    };
    b.record("web.wasm.opt_kib", meta.len() as f64 / 1024.0, "KiB");
    let gz = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(wasm)
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(gz) = gz {
        b.record("web.wasm.gzip_kib", gz.stdout.len() as f64 / 1024.0, "KiB");
    }
}
