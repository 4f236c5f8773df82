//! A game's page in a browser (`wasm32-unknown-unknown`, feature `web`):
//! what every page needs around [`Engine::run_web`] — a panic that reaches
//! the page instead of a frozen canvas, the page's `<canvas>`, the
//! address's options, and the run's end where the page (and a test) can
//! read it.
//!
//! A game's `main` for the browser is one call:
//!
//! ```ignore
//! // Built with `--target wasm32-unknown-unknown --features web`, bound
//! // by wasm-bindgen (`--target web`): `main` runs when the page loads it.
//! fn main() {
//!     laige_engine::page::run(Engine::builder().game(MyGame::default()));
//! }
//! ```
//!
//! What the page can read, as properties of `window`:
//! - `laigePanic`: the message of a Rust panic (also sent to
//!   `console.error`), set before the module traps;
//! - `laigeEnd`: one line when the run ends — `exit CODE (REASON); ticks
//!   N; frames N; state hash HEX` — or `the run did not start: ERROR`.
//!
//! The address's query options: `ticks=N` ends the run after N ticks
//! (default: when the game or the page ends it).

use wasm_bindgen::JsCast;
use web_sys::HtmlCanvasElement;

use crate::builder::EngineBuilder;
use crate::game::Game;
use crate::options::RunLimit;
use crate::report::RunReport;
use laige_core::{Error, ErrorCode, Result};

/// The id of the canvas [`run`] draws on: `<canvas id="laige">`.
pub const CANVAS_ID: &str = "laige";

/// Sets `window[name] = value` (what a page and its test poll).
pub fn set_global(name: &str, value: &str) {
    if let Some(window) = web_sys::window() {
        let _ = web_sys::js_sys::Reflect::set(&window, &name.into(), &value.into());
    }
}

/// Sends a panic's message to `console.error` and `window.laigePanic`
/// before the module traps, each prefixed with `who` (the game's name).
pub fn install_panic_report(who: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        let message = format!("{who} panicked: {info}");
        web_sys::console::error_1(&message.as_str().into());
        set_global("laigePanic", &message);
    }));
}

/// The page address's query (`?key=value&…`), or `""` outside a page.
pub fn search() -> String {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// The value of `key` in `search` (an address's query: `?key=value&…`).
pub fn query(search: &str, key: &str) -> Option<String> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v.to_owned())
}

/// `performance.now()`: milliseconds since the page's navigation started
/// (0 outside a page).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// The page's `<canvas id="ID">`.
///
/// # Errors
/// `engine/window_failed` (Unsupported) naming the id when there is no
/// page or no such canvas.
pub fn canvas(id: &str) -> Result<HtmlCanvasElement> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<HtmlCanvasElement>().ok())
        .ok_or_else(|| {
            Error::new(ErrorCode::Unsupported, crate::events::WINDOW_FAILED)
                .with_field("canvas")
                .with_value(id)
                .with_detail("the page has no <canvas> with this id")
        })
}

/// The `laigeEnd` line of a run's report.
pub fn end_line(report: &RunReport) -> String {
    format!(
        "exit {} ({}); ticks {}; frames {}; state hash {:016x}",
        report.exit_code(),
        report.exit.as_str(),
        report.ticks,
        report.frames,
        report.state_hash
    )
}

/// Runs `builder`'s game on the page's `<canvas id="laige">`: the panic
/// report installed (named for the page's title), the run bounded by the
/// address's `ticks=N`, the canvas's size as the configured window size,
/// no Ctrl-C handler (a page has no signals), and the end set as
/// `window.laigeEnd`. Returns at once: the browser's animation frames
/// drive the run. A run that cannot start (no canvas, no WebGL2, the
/// game's setup failing) sets `laigeEnd` to the error and logs it with
/// `console.error`.
pub fn run<G: Game + 'static>(builder: EngineBuilder<G>) {
    install_panic_report("laige");
    if let Err(err) = start(builder) {
        let line = format!("the run did not start: {err}");
        web_sys::console::error_1(&line.as_str().into());
        set_global("laigeEnd", &line);
    }
}

fn start<G: Game + 'static>(builder: EngineBuilder<G>) -> Result<()> {
    let canvas = canvas(CANVAS_ID)?;
    let search = search();
    let limit = query(&search, "ticks")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(RunLimit::Unlimited, RunLimit::Ticks);
    let mut builder = builder;
    builder.config.render.window_width = canvas.width();
    builder.config.render.window_height = canvas.height();
    builder.options.handle_ctrl_c = false;
    let engine = builder.build()?;
    engine.run_web(canvas, limit, |outcome| match outcome {
        Ok(report) => set_global("laigeEnd", &end_line(&report)),
        Err(err) => {
            let line = format!("the run did not start: {err}");
            web_sys::console::error_1(&line.as_str().into());
            set_global("laigeEnd", &line);
        }
    })
}
