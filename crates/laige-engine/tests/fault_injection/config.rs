//! Hostile configs: every value the loader accepts runs; everything else
//! is an error naming the field (or the path), the value (cut at a fixed
//! length) and what is accepted — read in bounded memory.

use laige_engine::config::MAX_CONFIG_BYTES;
use laige_engine::events::{CONFIG_PARSE_FAILED, CONFIG_TOO_LARGE};
use laige_engine::{Engine, EngineConfig, EngineOptions, NoGame, Pacing, RunLimit};

use super::{Scratch, bytes_read};

fn reject(text: &str) -> laige_engine::Error {
    EngineConfig::from_toml_str(text, "game.toml").expect_err("must be rejected")
}

/// Runs `config` headless and unpaced for a few frames (what "the loader
/// accepted it" must mean).
pub fn runs(config: &EngineConfig) {
    let report = Engine::builder()
        .game(NoGame)
        .config(config.clone())
        .options(EngineOptions {
            pacing: Pacing::Unpaced,
            handle_ctrl_c: false,
            ..EngineOptions::default()
        })
        .build()
        .unwrap_or_else(|e| panic!("accepted config does not build: {e}\n{config:?}"))
        .run_headless(RunLimit::Frames(3))
        .unwrap_or_else(|e| panic!("accepted config does not run: {e}\n{config:?}"));
    assert_eq!(report.frames, 3);
    assert_eq!(report.exit_code(), 0);
}

/// Fault: `render.window_title` with a NUL (before: accepted, then a
/// panic inside winit), or any other control character.
#[test]
fn a_title_with_a_control_character_is_rejected_naming_its_position() {
    for (title, at, code) in [
        ("ab\\u0000cd", 2, "U+0000"),
        ("\\tx", 0, "U+0009"),
        ("line\\nbreak", 4, "U+000A"),
        ("é\\u007f", 1, "U+007F"),
        ("zz\\u009b", 2, "U+009B"),
    ] {
        let e = reject(&format!("[render]\nwindow_title = \"{title}\"\n"));
        assert_eq!(e.field(), Some("render.window_title"), "{title}");
        let detail = e.detail().unwrap();
        assert!(
            detail.contains(&format!("character {at} is the control character {code}")),
            "{title}: {e}"
        );
    }
    let e = reject(&format!(
        "[render]\nwindow_title = \"{}\"\n",
        "t".repeat(257)
    ));
    assert_eq!(e.field(), Some("render.window_title"));
    assert!(e.detail().unwrap().contains("257 characters"), "{e}");
}

/// Fault: the extremes of every range at once. Each accepted config
/// builds an engine and runs.
#[test]
fn every_accepted_extreme_runs() {
    let title = format!("\"{}\"", "Ω".repeat(256));
    for text in [
        String::new(),
        format!(
            "[loop]\ntick_rate_hz = 20\nmax_catch_up_ticks = 20\n[determinism]\nseed = 18446744073709551615\nmath = \"float_pinned_32\"\n[render]\nframe_rate_hz = 1\nwindow_width = 1\nwindow_height = 16384\nwindow_title = {title}\n[log]\nfilter = \"trace,laige_sim::replay=off\"\nformat = \"json\"\n"
        ),
        "[loop]\ntick_rate_hz = 120\nmax_catch_up_ticks = 1\n[render]\nframe_rate_hz = 1000\nvsync = false\ninterpolation = false\npause_on_focus_lost = true\n".to_owned(),
        "[render]\nframe_rate_hz = 0\nwindow_title = \" x \"\n".to_owned(),
    ] {
        let cfg = EngineConfig::from_toml_str(&text, "t").unwrap_or_else(|e| panic!("{e}"));
        cfg.validate().unwrap();
        runs(&cfg);
    }
}

/// Fault: `log.filter = "ingo"` (before: accepted as a target, and every
/// log line silently off), and targets that are not identifiers.
#[test]
fn a_misspelt_log_filter_is_rejected() {
    for filter in [
        "ingo",
        "warn,laige_sim=loud",
        "laige-sim=debug",
        "warn,laige_sim",
    ] {
        let e = reject(&format!("[log]\nfilter = \"{filter}\"\n"));
        assert_eq!(e.field(), Some("log.filter"), "{filter}");
        assert_eq!(e.value(), Some(format!("{filter:?}").as_str()));
        assert!(e.accepted().unwrap().contains("target=level"), "{e}");
    }
}

/// Fault: a config file over 1 MiB, a 1 GiB sparse file and `/dev/zero`
/// (before: read whole, until out of memory for the device).
#[test]
fn oversized_configs_are_refused_naming_path_and_size_in_bounded_reads() {
    let dir = Scratch::new("config-size");
    let big = dir.file("big.toml", &vec![b'#'; MAX_CONFIG_BYTES + 1]);
    let e = EngineConfig::from_toml_file(&big).unwrap_err();
    assert_eq!(e.id(), CONFIG_TOO_LARGE);
    assert_eq!(e.field(), Some("path"));
    assert_eq!(e.value(), Some(big.display().to_string().as_str()));
    assert!(e.detail().unwrap().contains("1048577 bytes"), "{e}");
    // Exactly the cap is accepted (a comment-only file).
    let edge = dir.file("edge.toml", &vec![b'#'; MAX_CONFIG_BYTES]);
    assert!(EngineConfig::from_toml_file(&edge).is_ok());

    let sparse = dir.0.join("sparse.toml");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let before = bytes_read();
    let e = EngineConfig::from_toml_file(&sparse).unwrap_err();
    assert_eq!(e.id(), CONFIG_TOO_LARGE);
    assert!(e.detail().unwrap().contains("1073741824 bytes"), "{e}");
    let e = EngineConfig::from_toml_file("/dev/zero").unwrap_err();
    assert_eq!(e.id(), CONFIG_TOO_LARGE);
    assert_eq!(e.value(), Some("/dev/zero"));
    assert!(
        e.detail().unwrap().contains("more than 1048576 bytes"),
        "{e}"
    );
    // The sparse file is refused unread and the device after 1 MiB + 1
    // byte (the bound leaves room for the parallel tests' own reads).
    assert!(bytes_read() - before < 64 << 20);

    let text = "[loop]\ntick_rate_hz = 30\n# ".to_owned() + &"x".repeat(MAX_CONFIG_BYTES);
    assert_eq!(reject(&text).id(), CONFIG_TOO_LARGE);
}

/// Fault: a config that is not UTF-8 (before: no byte offset).
#[test]
fn a_non_utf8_config_names_the_byte_offset() {
    let dir = Scratch::new("config-utf8");
    let path = dir.file("latin1.toml", b"[render]\nwindow_title = \"caf\xe9\"\n");
    let e = EngineConfig::from_toml_file(&path).unwrap_err();
    assert_eq!(e.id(), CONFIG_PARSE_FAILED);
    assert_eq!(e.field(), Some("path"));
    assert_eq!(e.accepted(), Some("UTF-8 text"));
    assert!(
        e.detail()
            .unwrap()
            .contains("byte offset 28 (line 2) is not UTF-8: byte 0xe9"),
        "{e}"
    );
}

/// Fault: the same table twice (before: line and column only).
#[test]
fn a_duplicate_table_is_named() {
    let e = reject("[loop]\ntick_rate_hz = 30\n\n[loop]\nmax_catch_up_ticks = 2\n");
    assert_eq!(e.id(), CONFIG_PARSE_FAILED);
    assert_eq!(e.field(), Some("loop"), "{e}");
    assert!(e.to_string().contains("line 4"), "{e}");
    let e = reject("[render]\n[log]\n[ render ]\n");
    assert_eq!(e.field(), Some("render"), "{e}");
}

/// Fault: huge values, keys and titles (before: echoed verbatim; one
/// message was 21 MB). Every echoed piece is cut at a fixed length.
#[test]
fn echoed_values_are_cut_at_a_fixed_length() {
    let huge = "x".repeat(900_000);
    for text in [
        format!("[render]\nwindow_title = \"{huge}\\u0000\"\n"),
        format!("[render]\nvsync = \"{huge}\"\n"),
        format!("[determinism]\nmath = \"{huge}\"\n"),
        format!("[log]\nformat = \"{huge}\"\n"),
        format!("[log]\nfilter = \"{huge}\"\n"),
        format!("[loop]\n{huge} = 1\n"),
        format!("[{huge}]\n"),
        format!("[render]\nwindow_title = \"{huge}\"\n"),
    ] {
        let e = reject(&text);
        let shown = e.to_string();
        assert!(
            shown.len() < 2_000,
            "{} bytes: {}",
            shown.len(),
            &shown[..300]
        );
        assert!(shown.contains("… (9000"), "{}", &shown[..300]);
    }
}
