//! The engine config: defaults, every field's range, unknown keys, syntax
//! errors — with snapshots of the messages a person reads.

use laige_core::{ErrorCode, MathBackend};
use laige_engine::EngineConfig;

fn err(text: &str) -> laige_core::Error {
    EngineConfig::from_toml_str(text, "game.toml").expect_err("config must be rejected")
}

#[test]
fn empty_text_gives_the_documented_defaults() {
    let cfg = EngineConfig::from_toml_str("", "game.toml").unwrap();
    assert_eq!(cfg, EngineConfig::default());
    assert_eq!(cfg.game_loop.tick_rate_hz, 60);
    assert_eq!(cfg.game_loop.max_catch_up_ticks, 5);
    assert_eq!(cfg.determinism.math, MathBackend::FixedPoint16_16);
    assert_eq!(cfg.determinism.seed, 0);
    assert_eq!(cfg.render.frame_rate_hz, 60);
    assert!(cfg.render.vsync && cfg.render.interpolation);
    assert_eq!(
        (cfg.render.window_width, cfg.render.window_height),
        (1280, 720)
    );
    assert_eq!(cfg.log.filter, "info");
    cfg.validate().unwrap();
}

#[test]
fn every_field_is_read() {
    let text = r#"
[loop]
tick_rate_hz = 120
max_catch_up_ticks = 2

[determinism]
math = "float_pinned_32"
seed = 18446744073709551615

[render]
frame_rate_hz = 144
vsync = false
interpolation = false
window_width = 800
window_height = 600
window_title = "demo"
pause_on_focus_lost = true

[log]
filter = "warn,laige_sim=debug"
format = "json"
"#;
    let cfg = EngineConfig::from_toml_str(text, "game.toml").unwrap();
    assert_eq!(cfg.game_loop.tick_rate_hz, 120);
    assert_eq!(cfg.game_loop.max_catch_up_ticks, 2);
    assert_eq!(cfg.determinism.math, MathBackend::FloatPinned32);
    assert_eq!(cfg.determinism.seed, u64::MAX);
    assert_eq!(cfg.render.frame_rate_hz, 144);
    assert!(!cfg.render.vsync && !cfg.render.interpolation && cfg.render.pause_on_focus_lost);
    assert_eq!(
        (cfg.render.window_width, cfg.render.window_height),
        (800, 600)
    );
    assert_eq!(cfg.render.window_title, "demo");
    assert_eq!(cfg.log.filter, "warn,laige_sim=debug");
    assert_eq!(cfg.log.format, laige_core::diag::LogFormat::Json);
    cfg.validate().unwrap();
}

#[test]
fn range_edges_are_inclusive() {
    for (text, ok) in [
        ("[loop]\ntick_rate_hz = 20", true),
        ("[loop]\ntick_rate_hz = 19", false),
        ("[loop]\ntick_rate_hz = 121", false),
        ("[loop]\nmax_catch_up_ticks = 1", true),
        ("[loop]\nmax_catch_up_ticks = 0", false),
        ("[loop]\nmax_catch_up_ticks = 20", true),
        ("[loop]\nmax_catch_up_ticks = 21", false),
        ("[loop]\nmax_catch_up_ticks = 4294967295", false),
        ("[render]\nframe_rate_hz = 1", true),
        ("[render]\nframe_rate_hz = 1000", true),
        ("[render]\nframe_rate_hz = 1001", false),
        ("[render]\nframe_rate_hz = 0", true),
        ("[render]\nwindow_width = 16384", true),
        ("[render]\nwindow_width = 16385", false),
        ("[render]\nwindow_height = 0", false),
    ] {
        assert_eq!(EngineConfig::from_toml_str(text, "t").is_ok(), ok, "{text}");
    }
}

#[test]
fn tick_rate_out_of_range() {
    let e = err("[loop]\ntick_rate_hz = 7\n");
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.field(), Some("loop.tick_rate_hz"));
    insta::assert_snapshot!(e.to_string(), @"loop/tick_rate_invalid: invalid argument: loop.tick_rate_hz = 7; accepted: 20..=120 Hz");
}

#[test]
fn negative_and_huge_values_keep_their_value_in_the_message() {
    insta::assert_snapshot!(err("[loop]\nmax_catch_up_ticks = -3\n").to_string(), @"loop/catchup_invalid: invalid argument: loop.max_catch_up_ticks = -3; accepted: 1..=20 ticks per frame");
    insta::assert_snapshot!(err("[render]\nframe_rate_hz = 99999999999\n").to_string(), @"render_thread/frame_rate_invalid: invalid argument: render.frame_rate_hz = 99999999999; accepted: 1..=1000 Hz");
    insta::assert_snapshot!(err("[render]\nwindow_width = -1\n").to_string(), @"config/window_invalid: invalid argument: render.window_width = -1; accepted: 1..=16384 pixels");
}

#[test]
fn unknown_math_backend() {
    let e = err("[determinism]\nmath = \"double\"\n");
    assert_eq!(e.field(), Some("determinism.math"));
    insta::assert_snapshot!(e.to_string());
}

#[test]
fn empty_title_bad_format_and_bad_filter() {
    insta::assert_snapshot!(err("[render]\nwindow_title = \"  \"\n").to_string(), @r#"config/window_invalid: invalid argument: render.window_title = "  "; accepted: 1..=256 characters, not only spaces, no control characters (the title is empty or only spaces)"#);
    insta::assert_snapshot!(err("[log]\nformat = \"xml\"\n").to_string(), @r#"config/log_format_invalid: invalid argument: log.format = "xml"; accepted: "compact" or "json""#);
    let e = err("[log]\nfilter = \"laige_sim=loud\"\n");
    assert_eq!(e.field(), Some("log.filter"));
    insta::assert_snapshot!(e.to_string());
}

#[test]
fn unknown_keys_are_rejected_with_line_and_column() {
    let e = err("[loop]\ntick_rate_hz = 60\ntick_rte = 3\n");
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert_eq!(e.id(), laige_engine::events::CONFIG_PARSE_FAILED);
    insta::assert_snapshot!(e.to_string());
    let e = err("[rendering]\nvsync = true\n");
    insta::assert_snapshot!(e.to_string());
}

#[test]
fn wrong_types_name_the_key() {
    let e = err("[render]\nvsync = \"yes\"\n");
    assert_eq!(e.field(), Some("render.vsync"));
    insta::assert_snapshot!(e.to_string());
    let e = err("[loop]\ntick_rate_hz = 60.5\n");
    assert_eq!(e.field(), Some("loop.tick_rate_hz"));
    insta::assert_snapshot!(e.to_string());
}

#[test]
fn syntax_errors_report_line_and_column() {
    let e = err("[loop]\ntick_rate_hz = = 60\n");
    insta::assert_snapshot!(e.to_string());
    let e = err("[loop\n");
    insta::assert_snapshot!(e.to_string());
}

#[test]
fn a_missing_file_is_an_io_error_naming_the_path() {
    let e = EngineConfig::from_toml_file("/nonexistent/laige/game.toml").unwrap_err();
    assert_eq!(e.code(), ErrorCode::Io);
    assert_eq!(e.field(), Some("path"));
    assert_eq!(e.value(), Some("/nonexistent/laige/game.toml"));
}

#[test]
fn a_file_round_trips() {
    let dir = std::env::temp_dir().join(format!("laige-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.toml");
    std::fs::write(&path, "[loop]\ntick_rate_hz = 30\n").unwrap();
    let cfg = EngineConfig::from_toml_file(&path).unwrap();
    assert_eq!(cfg.game_loop.tick_rate_hz, 30);
    std::fs::remove_dir_all(&dir).ok();
}
