//! `cargo xtask web [--serve | --test] [--plain]`: the demo as a static site under `target/web` (the
//! page, the wasm module built with wasm SIMD128 and wasm-bindgen's
//! `--target web` glue, the module optimized by `wasm-opt` when binaryen
//! is installed), with the
//! engine's examples that run in a page under `examples/NAME/`
//! ([`WEB_EXAMPLES`]: each example's `main` for wasm32 is
//! `laige_engine::page::run`), optionally served on 127.0.0.1 for a person
//! (`--serve`); and the browser test `cargo xtask test` runs
//! (`demo_test`): the demo's page in headless Chromium against the native
//! demo's state hash, and each example's page against the native example's.
//!
//! The other examples have no page: `custom_pass` draws with a GL pass of
//! its own (desktop GL), `record_replay` and `headless_server` are
//! command-line programs around files.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::run::{SuiteBinaries, cargo, root};

/// `cargo xtask web`'s options.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Serve the site on 127.0.0.1 after building it (Ctrl-C stops).
    #[arg(long)]
    serve: bool,
    /// The port `--serve` listens on.
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// Run the browser test of `cargo xtask test` alone (the page in
    /// headless Chromium against the native demo).
    #[arg(long, conflicts_with = "serve")]
    test: bool,
    /// Build the module without wasm SIMD128 (rustc's default wasm32
    /// features) into `target/web-plain` instead (the `web` bench area's
    /// second site; no examples).
    #[arg(long, conflicts_with = "test")]
    plain: bool,
}

/// The built site and its module's sizes in bytes.
pub struct Site {
    /// `target/web`.
    pub dir: PathBuf,
    /// The module as wasm-bindgen wrote it.
    pub raw: u64,
    /// After `wasm-opt -O3` (`None`: binaryen is not installed).
    pub optimized: Option<u64>,
    /// The served module, gzipped (`gzip -9`; `None`: no gzip).
    pub gzipped: Option<u64>,
}

/// The tick the browser test compares: the end of the native demo's
/// default scripted session (5 s at 60 Hz), which the page replays with
/// `script=1`.
const HASH_TICK: u64 = 300;

/// `cargo xtask web [--serve] [--port N]`.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.test {
        if !demo_test()? {
            bail!("the browser test failed");
        }
        return Ok(());
    }
    let site = build_variant(if args.plain { Simd::Off } else { Simd::On })?;
    println!("{}", sizes(&site));
    if args.serve {
        serve(&site.dir, args.port)?;
    }
    Ok(())
}

fn sizes(site: &Site) -> String {
    let kib = |b: u64| format!("{:.0} KiB", b as f64 / 1024.0);
    format!(
        "xtask web: {}: module {} raw, {} after wasm-opt, {} gzipped",
        site.dir.display(),
        kib(site.raw),
        site.optimized
            .map_or_else(|| "— (no wasm-opt)".to_owned(), kib),
        site.gzipped.map_or_else(|| "—".to_owned(), kib),
    )
}

fn checked(mut c: Command, what: &str) -> anyhow::Result<()> {
    let status = c.status().with_context(|| format!("starting {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// Whether `program --version` runs.
fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Builds the site: the demo's web binary ([`WEB_PROFILE`], with SIMD128), its
/// glue, the page, the examples.
pub fn build() -> anyhow::Result<Site> {
    build_variant(Simd::On)
}

/// Whether the module may use wasm's 128-bit SIMD instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Simd {
    /// rustc's default wasm32 features (no SIMD): `target/web-plain`, built
    /// in its own target dir (`target/wasm-plain`) so the two builds do not
    /// undo each other; the demo only.
    Off,
    /// `-C target-feature=+simd128` (the Q16.16 column loops in lanes,
    /// auto-vectorized loops; every browser since 2021 runs it), the
    /// site's build: `target/web`, the demo and the examples.
    On,
}

/// [`build`] with or without SIMD128.
pub fn build_variant(simd: Simd) -> anyhow::Result<Site> {
    let root = root();
    let (dir, target_dir) = match simd {
        Simd::On => (root.join("target/web"), root.join("target")),
        Simd::Off => (
            root.join("target/web-plain"),
            root.join("target/wasm-plain"),
        ),
    };
    std::fs::create_dir_all(&dir)?;
    let mut c = cargo();
    if simd == Simd::On {
        with_simd128(&mut c);
    } else {
        c.env("CARGO_TARGET_DIR", &target_dir);
    }
    c.args(WASM_RELEASE_BUILD);
    c.args([
        "-p",
        "laige-demo",
        "--no-default-features",
        "--features",
        "web",
        "--bin",
        "laige-demo-web",
    ]);
    checked(c, "building laige-demo-web for wasm32-unknown-unknown")?;
    let built = target_dir.join(format!(
        "wasm32-unknown-unknown/{WEB_PROFILE}/laige-demo-web.wasm"
    ));
    // wasm-opt runs on rustc's module, before wasm-bindgen: binaryen 108
    // (Debian's) rewrites the externref table of wasm-bindgen's output
    // into one the glue cannot fill ("WebAssembly.Table.set(): Argument 1
    // is invalid"); bindgen's own passes after it are size-neutral.
    let (module, optimized) = if have("wasm-opt") {
        let opt = target_dir.join(format!(
            "wasm32-unknown-unknown/{WEB_PROFILE}/laige-demo-web.opt.wasm"
        ));
        let mut c = Command::new("wasm-opt");
        // The features rustc's wasm32 target enables by default (binaryen
        // must be told which instructions it may read and write).
        c.args([
            "-O3",
            "--strip-debug",
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
            "--enable-sign-ext",
            "--enable-mutable-globals",
            "--enable-multivalue",
            "--enable-reference-types",
        ]);
        if simd == Simd::On {
            c.arg("--enable-simd");
        }
        c.arg(&built).arg("-o").arg(&opt);
        checked(c, "wasm-opt -O3")?;
        (opt, true)
    } else {
        println!("xtask web: no wasm-opt (Debian's binaryen): the module stays as built");
        (built.clone(), false)
    };
    let wasm = dir.join("laige-demo_bg.wasm");
    let bindgen_into = |module: &Path, out: &Path| -> anyhow::Result<u64> {
        bindgen(module, out, "laige-demo")?;
        Ok(std::fs::metadata(out.join("laige-demo_bg.wasm"))?.len())
    };
    // The unoptimized module's size, for the figures (its glue is not served).
    let raw = if optimized {
        let scratch = dir.with_extension("raw");
        std::fs::create_dir_all(&scratch)?;
        bindgen_into(&built, &scratch)?
    } else {
        0
    };
    let served = bindgen_into(&module, &dir)?;
    let (raw, optimized) = if optimized {
        (raw, Some(served))
    } else {
        (served, None)
    };
    let gzipped = Command::new("gzip")
        .args(["-9", "-c"])
        .arg(&wasm)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| o.stdout.len() as u64);
    std::fs::copy(root.join("xtask/web/demo.html"), dir.join("index.html"))?;
    if simd == Simd::On {
        build_examples(&dir.join("examples"))?;
    }
    Ok(Site {
        dir,
        raw,
        optimized,
        gzipped,
    })
}

/// wasm-bindgen's `--target web` glue for `module` into `out` as
/// `NAME.js` and `NAME_bg.wasm` (`WASM_BINDGEN`, else `wasm-bindgen` on the
/// path: the CLI of Cargo.lock's wasm-bindgen version, which .ci/run
/// installs).
fn bindgen(module: &Path, out: &Path, name: &str) -> anyhow::Result<()> {
    let program = std::env::var("WASM_BINDGEN").unwrap_or_else(|_| "wasm-bindgen".into());
    let mut c = Command::new(program);
    c.args(["--target", "web", "--no-typescript", "--out-name", name]);
    c.arg("--out-dir").arg(out).arg(module);
    checked(c, &format!("wasm-bindgen for {name}"))
}

/// The site's wasm32 builds with SIMD128 (`Simd::On`; the demo and the
/// examples in one target dir, so neither rebuilds the other's crates).
fn with_simd128(c: &mut Command) {
    c.env(
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
        "-C target-feature=+simd128",
    );
}

/// The cargo profile of every module a page loads (the workspace
/// Cargo.toml's `[profile.web]`: release optimized for size in one LTO
/// unit, the tick's crates at opt-level 3); its output directory under
/// `target/wasm32-unknown-unknown/`.
const WEB_PROFILE: &str = "web";

/// `cargo` arguments of every module a page loads: a [`WEB_PROFILE`]
/// build for the browser's target.
const WASM_RELEASE_BUILD: [&str; 5] = [
    "build",
    "--profile",
    WEB_PROFILE,
    "--target",
    "wasm32-unknown-unknown",
];

/// The engine's examples that run in a page (`laige_engine::page::run`):
/// built into `SITE/examples/NAME/`.
pub const WEB_EXAMPLES: [&str; 3] = ["pong", "snake", "billiards"];

/// The engine features of the examples' browser build: the browser run,
/// `window` (which the examples require; it compiles nothing more on
/// wasm32) and `physics` for billiards.
pub const WEB_EXAMPLE_FEATURES: &str = "web,window,physics";

/// The ticks the examples' browser test plays in each page and natively.
const EXAMPLE_TICKS: u64 = 600;

/// Builds [`WEB_EXAMPLES`] for the browser ([`WEB_PROFILE`], with SIMD128, one
/// cargo call; not passed through wasm-opt: their size has no goal), each
/// bound by wasm-bindgen into `dir/NAME/` with its page.
fn build_examples(dir: &Path) -> anyhow::Result<()> {
    let mut c = cargo();
    with_simd128(&mut c);
    c.args(WASM_RELEASE_BUILD);
    c.args([
        "-p",
        "laige-engine",
        "--no-default-features",
        "--features",
        WEB_EXAMPLE_FEATURES,
    ]);
    for example in WEB_EXAMPLES {
        c.args(["--example", example]);
    }
    checked(
        c,
        "building the engine's examples for wasm32-unknown-unknown",
    )?;
    let template = std::fs::read_to_string(root().join("xtask/web/example.html"))?;
    for example in WEB_EXAMPLES {
        let out = dir.join(example);
        std::fs::create_dir_all(&out)?;
        let module = root().join(format!(
            "target/wasm32-unknown-unknown/{WEB_PROFILE}/examples/{example}.wasm"
        ));
        bindgen(&module, &out, example)?;
        std::fs::write(out.join("index.html"), template.replace("EXAMPLE", example))?;
    }
    Ok(())
}

/// The native example's state hash after `ticks` ticks (headless, the
/// debug build of [`SuiteBinaries`]).
fn native_example_hash(bins: &SuiteBinaries, example: &str, ticks: u64) -> anyhow::Result<String> {
    let mut c = Command::new(bins.get(example)?);
    c.current_dir(root());
    c.args(["--ticks", &ticks.to_string()]);
    reported_state_hash(c, &format!("the native {example} example"))
}

/// The native demo's state hash after `HASH_TICK` ticks of its default
/// scripted session (unpaced: every tick on virtual time; the debug build
/// of [`SuiteBinaries`]).
fn native_hash(bins: &SuiteBinaries) -> anyhow::Result<String> {
    let mut c = Command::new(bins.get("laige-demo")?);
    c.current_dir(root());
    c.args(["--unpaced", "--quiet", "--ticks", &HASH_TICK.to_string()]);
    reported_state_hash(c, "the native demo")
}

/// Runs `c` (a native run that prints the engine's report) and reads the
/// report's `state hash:` line.
fn reported_state_hash(mut c: Command, what: &str) -> anyhow::Result<String> {
    let out = c.output().with_context(|| format!("running {what}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    text.lines()
        .find_map(|l| l.trim().strip_prefix("state hash: "))
        .map(str::to_owned)
        .with_context(|| format!("no state hash in the report of {what}: {text}"))
}

/// The browser test (a step of `cargo xtask test`): the site built, the
/// native hash at `HASH_TICK`, then `xtask/web/demo-test.mjs` runs the
/// page in headless Chromium and judges it (the hash, 300+ frames without
/// an error, one frame against the native offscreen render).
pub fn demo_test() -> anyhow::Result<bool> {
    let site = build()?;
    println!("{}", sizes(&site));
    let bins = SuiteBinaries::build()?;
    let hash = native_hash(&bins)?;
    println!("xtask web: native demo, tick {HASH_TICK}: state hash {hash}");
    let mut c = Command::new("node");
    c.current_dir(root());
    c.arg("xtask/web/demo-test.mjs").arg(&site.dir);
    c.args([&hash, &HASH_TICK.to_string()]);
    // The native demo: the one-frame comparison's offscreen render.
    c.arg(bins.get("laige-demo")?);
    let demo = crate::run::step("browser: the demo page in headless Chromium", c)?;
    let examples = examples_test(&bins, &site.dir)?;
    Ok(webrtc_test(&bins, &site.dir)? && examples && demo)
}

/// The browser half of the WebRTC sessions (`xtask/web/webrtc-test.mjs`):
/// pages of the site (the module built above: no second wasm build), the
/// native demo with its `webrtc` feature and laige-testkit's
/// `laige-signaling` server on 127.0.0.1 (both of [`SuiteBinaries`]) in
/// sessions: two pages agree on every confirmed tick, a page and a native
/// peer agree (fixed point and pinned floats), a closed page ends the
/// native peer with code 10, a divergent native build is caught as a
/// desync on both sides and xtask's `desync-diff` (the suite's build of
/// xtask: the running binary may have been replaced on disk by the
/// workspace build, which leaves its own path dangling) names the
/// differing field from the page's and the native dump.
fn webrtc_test(bins: &SuiteBinaries, site: &Path) -> anyhow::Result<bool> {
    let mut c = Command::new("node");
    c.current_dir(root());
    c.arg("xtask/web/webrtc-test.mjs").arg(site);
    c.arg(bins.get("laige-signaling")?)
        .arg(bins.get("laige-demo")?)
        .arg(bins.get("xtask")?);
    crate::run::step("browser: WebRTC sessions (pages and a native peer)", c)
}

/// The examples' pages in headless Chromium (`xtask/web/examples-test.mjs`):
/// each runs [`EXAMPLE_TICKS`] ticks without an error and ends on the
/// native example's state hash.
fn examples_test(bins: &SuiteBinaries, site: &Path) -> anyhow::Result<bool> {
    let mut c = Command::new("node");
    c.current_dir(root());
    c.arg("xtask/web/examples-test.mjs")
        .arg(site.join("examples"));
    c.arg(EXAMPLE_TICKS.to_string());
    for example in WEB_EXAMPLES {
        let hash = native_example_hash(bins, example, EXAMPLE_TICKS)?;
        println!("xtask web: native {example}, tick {EXAMPLE_TICKS}: state hash {hash}");
        c.arg(format!("{example}={hash}"));
    }
    crate::run::step("browser: the examples' pages in headless Chromium", c)
}

/// Serves `dir` on 127.0.0.1:`port`, one request at a time, until killed.
fn serve(dir: &Path, port: u16) -> anyhow::Result<()> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("listening on 127.0.0.1:{port}"))?;
    println!(
        "xtask web: serving {} on http://127.0.0.1:{port}/ (Ctrl-C stops)",
        dir.display()
    );
    for stream in listener.incoming().flatten() {
        if let Err(e) = answer(dir, stream) {
            eprintln!("xtask web: {e:#}");
        }
    }
    Ok(())
}

/// Answers one GET with a file of `dir` (404 outside it or when missing).
fn answer(dir: &Path, mut stream: TcpStream) -> anyhow::Result<()> {
    let mut line = String::new();
    BufReader::new(&stream).read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or("/");
    let name = if path == "/" {
        "index.html"
    } else {
        path.trim_start_matches('/')
    };
    let file = dir.join(name);
    let inside = !name.split('/').any(|part| part == ".." || part.is_empty());
    match std::fs::read(&file).ok().filter(|_| inside) {
        Some(body) => {
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript; charset=utf-8",
                Some("wasm") => "application/wasm",
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n",
                body.len()
            )?;
            stream.write_all(&body)?;
        }
        None => write!(
            stream,
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )?,
    }
    Ok(())
}
