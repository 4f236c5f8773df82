//! Property-based fuzzing of the config loader: TOML texts assembled from
//! every key with values at, inside and beyond each range, wrong types,
//! control characters, duplicate and unknown tables, and raw junk lines.
//! No text panics; every rejection names what it rejects (a field, or the
//! line and column); every accepted config builds an engine and runs.
//! 10,000 cases per run (about 20 s in a debug build on a loaded 2-core
//! machine).

use laige_engine::EngineConfig;
use proptest::prelude::*;

const KEYS: [&str; 15] = [
    "loop.tick_rate_hz",
    "loop.max_catch_up_ticks",
    "determinism.math",
    "determinism.seed",
    "render.frame_rate_hz",
    "render.vsync",
    "render.interpolation",
    "render.window_width",
    "render.window_height",
    "render.window_title",
    "render.pause_on_focus_lost",
    "log.filter",
    "log.format",
    "loop.tick_rte",
    "rendering.vsync",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            -1_i64,
            0,
            1,
            19,
            20,
            21,
            60,
            120,
            121,
            1000,
            1001,
            16_384,
            16_385,
            4_294_967_295,
            i64::MAX,
            i64::MIN,
        ])
        .prop_map(|v| v.to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        any::<bool>().prop_map(|v| v.to_string()),
        prop::sample::select(vec![
            "\"fixed_point_16_16\"",
            "\"float_pinned_32\"",
            "\"compact\"",
            "\"json\"",
            "\"info\"",
            "\"ingo\"",
            "\"warn,laige_sim=debug\"",
            "\"laige-sim=debug\"",
            "\"\"",
            "\"  \"",
            "\"laige\"",
            "\"a\\u0000b\"",
            "\"tab\\there\"",
            "1.5",
            "[1, 2]",
            "{ a = 1 }",
            "\"\\u007f\"",
            "nan",
            "\"Ω\"",
        ])
        .prop_map(str::to_owned),
        "[ -~]{0,12}".prop_map(|s| format!("{s:?}")),
        "\\PC{0,8}".prop_map(|s| format!("{s:?}")),
        (1_usize..300).prop_map(|n| format!("\"{}\"", "t".repeat(n))),
    ]
}

#[derive(Clone, Debug)]
pub enum Line {
    Set(&'static str, String),
    Junk(String),
}

/// A value inside the key's accepted range (so that many assembled
/// configs are accepted, and must run).
fn valid(key: &'static str) -> BoxedStrategy<String> {
    let int = |lo: i64, hi: i64| (lo..=hi).prop_map(|v| v.to_string()).boxed();
    let one_of = |v: &[&'static str]| {
        prop::sample::select(v.to_vec())
            .prop_map(str::to_owned)
            .boxed()
    };
    match key.split_once('.').map_or(key, |(_, k)| k) {
        "tick_rate_hz" => int(20, 120),
        "max_catch_up_ticks" => int(1, 20),
        "math" => one_of(&["\"fixed_point_16_16\"", "\"float_pinned_32\""]),
        "seed" => any::<u64>().prop_map(|v| v.to_string()).boxed(),
        "frame_rate_hz" => int(0, 1000),
        "window_width" | "window_height" => int(1, 16_384),
        "window_title" => "t[a-zA-Z0-9 Ωé-]{0,60}"
            .prop_map(|s| format!("{s:?}"))
            .boxed(),
        "filter" => one_of(&[
            "\"info\"",
            "\"warn,laige_sim=debug\"",
            "\"TRACE\"",
            "\"off,laige_engine::config=error\"",
        ]),
        "format" => one_of(&["\"compact\"", "\"json\""]),
        _ => any::<bool>().prop_map(|v| v.to_string()).boxed(),
    }
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        12 => prop::sample::select(KEYS[..13].to_vec())
            .prop_flat_map(|k| (Just(k), prop_oneof![3 => valid(k), 1 => value()].boxed()))
            .prop_map(|(k, v)| Line::Set(k, v)),
        1 => (prop::sample::select(KEYS.to_vec()), value()).prop_map(|(k, v)| Line::Set(k, v)),
        1 => "[ -~\\t]{0,16}".prop_map(Line::Junk),
    ]
}

/// The TOML text of `lines`: each key under its table header (headers
/// repeat when a table comes back, which TOML forbids).
fn text(lines: &[Line]) -> String {
    let mut out = String::new();
    let mut table = "";
    for l in lines {
        match l {
            Line::Set(key, v) => {
                let (t, k) = key.split_once('.').unwrap();
                if t != table {
                    out.push_str(&format!("[{t}]\n"));
                    table = t;
                }
                out.push_str(&format!("{k} = {v}\n"));
            }
            Line::Junk(s) => {
                out.push_str(s);
                out.push('\n');
            }
        }
    }
    out
}

/// One fuzz case: no panic, a named rejection or a config that runs.
pub fn case(lines: &[Line]) -> Result<(), TestCaseError> {
    let text = text(lines);
    match EngineConfig::from_toml_str(&text, "fuzz.toml") {
        Ok(cfg) => {
            prop_assert!(cfg.validate().is_ok(), "accepted but invalid: {text}");
            super::config::runs(&cfg);
        }
        Err(e) => {
            let located = e.detail().is_some_and(|d| d.contains(", line "));
            prop_assert!(
                e.field().is_some() || located,
                "a rejection that names nothing: {e}\n{text}"
            );
            prop_assert!(e.to_string().len() < 4_000, "an unbounded message: {e}");
        }
    }
    Ok(())
}

pub fn lines() -> impl Strategy<Value = Vec<Line>> {
    proptest::collection::vec(line(), 0..10)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10_000, max_shrink_time: 30_000, ..ProptestConfig::default() })]

    #[test]
    fn fuzzed_configs_are_named_rejections_or_run(lines in lines()) {
        case(&lines)?;
    }
}
