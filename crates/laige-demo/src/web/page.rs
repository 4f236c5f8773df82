//! The page side of `laige-demo-web`: the panic report, the address's
//! options, the demo wrapped to record its state hashes and frame numbers,
//! the engine's web run (alone, or as one peer of a WebRTC session), and
//! the exports the page reads.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;
use std::time::Duration;

use laige_demo::net::{self as demo_net, NetPlan, Role};
use laige_demo::{Demo, NetDemo, headless_script, input_log, pilot_script, replay_identity};
use laige_engine::net::fault::Faults;
use laige_engine::net::{NetConfig, WebRtcTransport};
use laige_engine::page::{self, now_ms, query, set_global};
use laige_engine::{
    Engine, EngineConfig, EngineOptions, EngineScalar, Frame, Game, GameWrapper, RunLimit,
    RunReport, World,
};
use wasm_bindgen::JsCast as _;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;

/// What the page can read about the run.
#[derive(Default)]
struct Status {
    frames: u64,
    ticks: u64,
    presented: u64,
    dropped_ticks: u64,
    render_dropped: u64,
    entities: u64,
    first_present_ms: Option<f64>,
    /// `(tick, state hash)` every `hash_every` ticks.
    hashes: Vec<(u64, u64)>,
    /// Every tick's delivered input (`laige_demo::input_log`).
    input_log: String,
    /// The last tick logged there.
    logged_tick: Option<u64>,
    /// The report's summary once the run ended, or the error that kept it
    /// from starting.
    end: Option<String>,
    /// The run's recording (`record=1`), once the run ended.
    recording: Option<Vec<u8>>,
    /// A session's confirmed `(tick, state hash)` pairs as `laige-demo
    /// --net-hashes` writes them (`TICK HASH` lines), once the run ended.
    net_hashes: String,
    /// A session's desynced tick's dump, as `laige-demo --dump-dir`
    /// writes it, once the run ended in a desync.
    desync_dump: String,
}

thread_local! {
    static STATUS: RefCell<Status> = RefCell::new(Status::default());
}

/// `t` as the inside of a JSON string (quotes, backslashes and control
/// characters escaped).
fn json_text(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The demo (alone, or a session's [`NetDemo`]), recording its state
/// hash every `hash_every` ticks and its frame numbers for the page.
struct WebDemo<G> {
    demo: G,
    hash_every: u64,
    /// Panic at this tick (`panic_at=N`: the test that a panic reaches the
    /// page with its message).
    panic_at: Option<u64>,
}

impl<G: Game> GameWrapper for WebDemo<G> {
    type Inner = G;

    fn inner(&self) -> &G {
        &self.demo
    }

    fn inner_mut(&mut self) -> &mut G {
        &mut self.demo
    }

    fn on_tick<S: EngineScalar>(&mut self, world: &World, tick: u64) {
        Game::on_tick::<S>(&mut self.demo, world, tick);
        assert!(
            self.panic_at != Some(tick),
            "the page asked for a panic at tick {tick} (panic_at)"
        );
        let input = world.input();
        if let Some(delivered) = input.delivered_tick() {
            STATUS.with_borrow_mut(|s| {
                if s.logged_tick != Some(delivered) {
                    s.logged_tick = Some(delivered);
                    input_log::push_line(&mut s.input_log, delivered, input.delivered());
                }
            });
        }
        if self.hash_every > 0 && tick.is_multiple_of(self.hash_every) {
            let hash = world.state_hash();
            STATUS.with_borrow_mut(|s| s.hashes.push((tick, hash)));
        }
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        Game::present::<S>(&mut self.demo, world, frame);
        let stats = *frame.stats();
        STATUS.with_borrow_mut(|s| {
            s.frames = stats.frame;
            s.ticks = stats.tick;
            s.presented = stats.frames_presented;
            s.dropped_ticks = stats.dropped_ticks;
            s.render_dropped = stats.frames_render_dropped;
            s.entities = world.len() as u64;
        });
    }
}

fn first_present() {
    let at = now_ms();
    STATUS.with_borrow_mut(|s| s.first_present_ms = Some(at));
}

fn ended(outcome: laige_engine::Result<RunReport>) {
    let line = match outcome {
        Ok(mut report) => {
            let mut line = page::end_line(&report);
            if let Some(net) = &report.net {
                let _ = write!(line, "\n{net}");
                let mut text = String::with_capacity(net.confirmed.len() * 24);
                for (tick, hash) in &net.confirmed {
                    let _ = writeln!(text, "{tick} {hash:016x}");
                }
                let dump = net.desync_dump.as_ref().map(|(_, d)| d.clone());
                STATUS.with_borrow_mut(|s| {
                    s.net_hashes = text;
                    s.desync_dump = dump.unwrap_or_default();
                });
            }
            if let Some(recorded) = report.recording.take() {
                let _ = write!(line, "; {recorded}");
                if let Some(e) = &recorded.error {
                    web_sys::console::error_1(&format!("laige-demo: recording: {e}").into());
                }
                let bytes = recorded.bytes;
                STATUS.with_borrow_mut(|s| s.recording = Some(bytes));
            }
            line
        }
        Err(err) => {
            let line = format!("laige-demo: the run did not start: {err}");
            web_sys::console::error_1(&line.as_str().into());
            line
        }
    };
    set_global("laigeEnd", &line);
    STATUS.with_borrow_mut(|s| s.end = Some(line));
}

/// Starts the demo on the page's `<canvas id="laige">` (not on a page
/// that plays a replay, `replay=…`: the page calls [`laige_replay`]; nor
/// on one that measures, `bench=1`: the bench calls
/// [`laige_bench_ticks`]).
pub(crate) fn start() {
    page::install_panic_report("laige-demo");
    let search = page::search();
    // A page that plays a replay or measures ticks runs no live demo.
    if query(&search, "replay").is_some() || query(&search, "bench").is_some() {
        return;
    }
    if let Err(err) = run() {
        ended(Err(err));
    }
}

/// The address's entity count (`entities=N`, default 10 000).
fn entities_of(search: &str) -> u32 {
    query(search, "entities")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(10_000, |n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// What the address sets up for any run: the config (the canvas's size,
/// `interpolate=0`, `backend=…`), the options, the entities, the hash
/// interval, the limit.
struct Plan {
    config: EngineConfig,
    options: EngineOptions,
    entities: u32,
    hash_every: u64,
    limit: RunLimit,
    panic_at: Option<u64>,
    canvas: web_sys::HtmlCanvasElement,
    /// A session's packet faults (`fault_latency_ms=MS`,
    /// `fault_jitter_ms=MS`, `fault_loss_per_mille=N`: the native demo's
    /// `--fault-*` flags; the fault stream's seed is the seat, as there).
    faults: Faults,
}

fn plan(search: &str) -> laige_engine::Result<Plan> {
    let canvas = page::canvas(page::CANVAS_ID)?;
    let number = |key: &str| query(search, key).and_then(|v| v.parse::<u64>().ok());
    let entities = entities_of(search);
    STATUS.with_borrow_mut(|s| s.hashes.reserve(1024));
    let mut config = EngineConfig::default();
    // The view fits the arena to the canvas (`demo_view` reads these).
    config.render.window_width = canvas.width();
    config.render.window_height = canvas.height();
    if query(search, "interpolate").as_deref() == Some("0") {
        config.render.interpolation = false;
    }
    if let Some(backend) = query(search, "backend") {
        config.determinism.math = backend.parse()?;
    }
    let options = EngineOptions {
        handle_ctrl_c: false,
        on_first_present: Some(first_present as fn()),
        sprite_capacity: entities as usize + 256,
        ..EngineOptions::default()
    };
    Ok(Plan {
        config,
        options,
        entities,
        hash_every: number("hash_every").unwrap_or(60),
        limit: number("ticks").map_or(RunLimit::Unlimited, RunLimit::Ticks),
        panic_at: number("panic_at"),
        canvas,
        faults: Faults {
            latency: Duration::from_millis(number("fault_latency_ms").unwrap_or(0)),
            jitter: Duration::from_millis(number("fault_jitter_ms").unwrap_or(0)),
            loss_per_mille: number("fault_loss_per_mille")
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            ..Faults::default()
        },
    })
}

fn run() -> laige_engine::Result<()> {
    let search = page::search();
    let plan = plan(&search)?;
    if let Some(signal) = query(&search, "signal") {
        let signal = js_sys::decode_uri_component(&signal)
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or(signal);
        return join(&search, plan, &signal);
    }
    let number = |key: &str| query(&search, key).and_then(|v| v.parse::<u64>().ok());
    let game = WebDemo {
        demo: Demo {
            entities: plan.entities,
            progress_every_frames: 0,
            ..Demo::default()
        },
        hash_every: plan.hash_every,
        panic_at: plan.panic_at,
    };
    let mut builder = Engine::builder()
        .game(game)
        .config(plan.config.clone())
        .options(plan.options)
        .replay_identity(replay_identity(plan.entities));
    if let Some(seconds) = number("script") {
        builder =
            builder.scripted_input(headless_script(seconds, plan.config.game_loop.tick_rate_hz));
    }
    if number("record") == Some(1) {
        builder = builder.record_in_memory();
    }
    builder.build()?.run_web(plan.canvas, plan.limit, ended)
}

/// The seconds of the pilot's script when the run has no tick limit.
const UNLIMITED_SCRIPT_SECONDS: u64 = 600;

/// Joins the WebRTC room at `signal` (`players=N`, default 2) and, once it
/// is full, runs the demo as one peer of the session (the native
/// `laige-demo --net webrtc`'s: the same seats by peer id, the same pilot
/// script for this player's seat, the confirmed hashes logged). The room
/// is polled once per animation frame: nothing on the page's thread
/// waits for it. A backend that the supported-pairs table does not
/// promise between this page and a native x86_64 peer is refused first.
fn join(search: &str, plan: Plan, signal: &str) -> laige_engine::Result<()> {
    demo_net::session_pair_promised(
        demo_net::PAIRS_TABLE,
        plan.config.determinism.math,
        &demo_net::BROWSER_AND_NATIVE,
    )?;
    let players = query(search, "players")
        .and_then(|v| v.parse::<u8>().ok())
        .unwrap_or(2);
    let transport = WebRtcTransport::open(&demo_net::webrtc_room_of(signal, players))?;
    let signal = signal.to_owned();
    poll_room(transport, move |transport| {
        let seating = demo_net::webrtc_seating(transport, players);
        if let Some(seat) = seating.seat {
            set_global(
                "laigeSeat",
                &format!("player {seat} of {players} in {signal}"),
            );
        }
        if let Err(e) = start_peer(plan, seating, signal) {
            ended(Err(e));
        }
    });
    Ok(())
}

/// Polls `transport`'s room from the page's animation frames until it is
/// full (then `full` takes it) or fails (the run ends with the error).
fn poll_room(transport: WebRtcTransport, full: impl FnOnce(WebRtcTransport) + 'static) {
    type Callback = Rc<RefCell<Option<Closure<dyn FnMut()>>>>;
    fn next(frame: &Callback) {
        if let (Some(window), Some(f)) = (web_sys::window(), frame.borrow().as_ref()) {
            let _ = window.request_animation_frame(f.as_ref().unchecked_ref());
        }
    }
    let frame: Callback = Rc::new(RefCell::new(None));
    let again = Rc::clone(&frame);
    let mut waiting = Some((transport, full));
    // The callback stays alive with the page (it is not freed from inside
    // itself): one small closure per page.
    *frame.borrow_mut() = Some(Closure::new(move || {
        let Some((transport, _)) = waiting.as_mut() else {
            return;
        };
        match transport.connected() {
            Ok(false) => next(&again),
            Ok(true) => {
                if let Some((transport, full)) = waiting.take() {
                    full(transport);
                }
            }
            Err(e) => {
                waiting = None;
                ended(Err(e));
            }
        }
    }));
    next(&frame);
}

/// The demo as one peer of the full room's session.
fn start_peer(plan: Plan, seating: demo_net::Seating, signal: String) -> laige_engine::Result<()> {
    let rate = plan.config.game_loop.tick_rate_hz;
    let defaults = NetConfig::default();
    let net_plan = NetPlan {
        role: Role::WebRtc {
            signal,
            players: seating.players,
        },
        config: NetConfig {
            tick_rate_hz: rate as usize,
            confirmed_log: demo_net::CONFIRMED_LOG,
            ..defaults
        },
        faults: plan.faults,
        record: None,
    };
    let script_seconds = match plan.limit {
        RunLimit::Ticks(n) => n.div_ceil(u64::from(rate)) + 1,
        _ => UNLIMITED_SCRIPT_SECONDS,
    };
    let game = WebDemo {
        demo: NetDemo {
            demo: Demo {
                entities: plan.entities,
                progress_every_frames: 0,
                ..Demo::default()
            },
            players: seating.players,
            pilot: None,
        },
        hash_every: plan.hash_every,
        panic_at: plan.panic_at,
    };
    let mut builder = Engine::builder()
        .game(game)
        .config(plan.config)
        .options(plan.options)
        .replay_identity(replay_identity(plan.entities));
    if let Some(seat) = seating.seat {
        builder = builder.scripted_input(pilot_script(seat, script_seconds, rate));
    }
    builder
        .net(move |world| demo_net::driver(&net_plan, &seating, world))
        .build()?
        .run_web(plan.canvas, plan.limit, ended)
}

/// The state hash recorded at `tick` (hex), if the run recorded one there.
#[wasm_bindgen]
#[must_use]
pub fn laige_hash_at(tick: u32) -> Option<String> {
    STATUS.with_borrow(|s| {
        s.hashes
            .iter()
            .find(|(t, _)| *t == u64::from(tick))
            .map(|(_, h)| format!("{h:016x}"))
    })
}

/// The run's numbers as JSON: `frames`, `ticks`, `presented`,
/// `dropped_ticks`, `render_dropped`, `entities`, `first_present_ms`
/// (null before the first frame), `end` (null while running).
#[wasm_bindgen]
#[must_use]
pub fn laige_status() -> String {
    STATUS.with_borrow(|s| {
        let mut out = String::new();
        let _ = write!(
            out,
            "{{\"frames\":{},\"ticks\":{},\"presented\":{},\"dropped_ticks\":{},\"render_dropped\":{},\"entities\":{},\"first_present_ms\":{},\"end\":",
            s.frames,
            s.ticks,
            s.presented,
            s.dropped_ticks,
            s.render_dropped,
            s.entities,
            s.first_present_ms
                .map_or_else(|| "null".to_owned(), |ms| format!("{ms:.1}")),
        );
        match &s.end {
            Some(end) => {
                let _ = write!(out, "\"{}\"}}", json_text(end));
            }
            None => out.push_str("null}"),
        }
        out
    })
}

/// The run's recording (`record=1`): the replay file's bytes once the run
/// ended (the page offers them as a download; `laige-demo --replay FILE
/// --entities N` verifies them natively, [`laige_replay`] in a page).
#[wasm_bindgen]
#[must_use]
pub fn laige_recording() -> Option<Vec<u8>> {
    STATUS.with_borrow(|s| s.recording.clone())
}

/// Plays the replay `bytes` back through the demo (the address's
/// `entities=N`, as recorded), headless and unpaced on the page's thread,
/// comparing every recorded state hash: the verdict as JSON —
/// `verified`, `exit_code` (the native `--replay`'s: 0 verified, 5
/// diverged or not verified, 6 torn), `ticks`, `state_hash` (hex, the
/// world after the playback) and `verdict` (the text), or `error` (a file
/// the engine refused: damage, another identity).
#[wasm_bindgen]
#[must_use]
pub fn laige_replay(bytes: &[u8]) -> String {
    let search = page::search();
    let entities = entities_of(&search);
    let demo = Demo {
        entities,
        progress_every_frames: 0,
        ..Demo::default()
    };
    let options = EngineOptions {
        handle_ctrl_c: false,
        install_log_subscriber: false,
        sprite_capacity: entities as usize + 256,
        ..EngineOptions::default()
    };
    let verdict = Engine::builder()
        .game(demo)
        .options(options)
        .replay_identity(replay_identity(entities))
        .build()
        .and_then(|engine| engine.replay_bytes(bytes));
    match verdict {
        Ok(v) => format!(
            "{{\"verified\":{},\"exit_code\":{},\"ticks\":{},\"state_hash\":\"{:016x}\",\"verdict\":\"{}\"}}",
            v.outcome.is_verified(),
            v.exit_code(),
            v.run.ticks,
            v.run.state_hash,
            json_text(&v.to_string()),
        ),
        Err(e) => format!(
            "{{\"verified\":false,\"error\":\"{}\"}}",
            json_text(&e.to_string())
        ),
    }
}

/// The demo's tick-time run (`laige_demo::tick_bench`, the `web` bench
/// area's page side) on `backend` (`fixed_point_16_16`,
/// `float_pinned_32`): JSON `ticks`, `tick_p50_ns`, `tick_p99_ns`,
/// `samples`, `state_hash` (hex), or `error`.
#[wasm_bindgen]
#[must_use]
pub fn laige_bench_ticks(backend: &str, entities: u32, ticks: u32) -> String {
    let run = backend
        .parse()
        .and_then(|b| laige_demo::tick_bench::run(b, entities, u64::from(ticks)));
    match run {
        Ok(r) => format!(
            "{{\"ticks\":{},\"tick_p50_ns\":{},\"tick_p99_ns\":{},\"samples\":{},\"state_hash\":\"{:016x}\"}}",
            r.ticks, r.tick_p50_ns, r.tick_p99_ns, r.samples, r.state_hash
        ),
        Err(e) => format!("{{\"error\":\"{}\"}}", json_text(&e.to_string())),
    }
}

/// A session's confirmed `(tick, state hash)` pairs once the run ended,
/// one `TICK HASH` line each (hash in hex), as `laige-demo --net-hashes
/// FILE` writes them; empty before the end or without a session.
#[wasm_bindgen]
#[must_use]
pub fn laige_net_hashes() -> String {
    STATUS.with_borrow(|s| s.net_hashes.clone())
}

/// A session's desynced tick's snapshot dump once its run ended in a
/// desync (what `laige-demo --dump-dir DIR` writes natively and `cargo
/// xtask desync-diff` compares with the other peer's); empty otherwise.
#[wasm_bindgen]
#[must_use]
pub fn laige_desync_dump() -> String {
    STATUS.with_borrow(|s| s.desync_dump.clone())
}

/// The input every tick delivered so far (`laige_demo::input_log`'s text:
/// `laige-demo --input-log FILE` plays it back natively).
#[wasm_bindgen]
#[must_use]
pub fn laige_input_log() -> String {
    STATUS.with_borrow(|s| s.input_log.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_escapes_what_json_needs() {
        assert_eq!(json_text("a\"b\\c\nd"), "a\\\"b\\\\c\\u000ad");
    }
}
