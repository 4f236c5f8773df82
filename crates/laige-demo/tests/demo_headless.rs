//! The demo binary headless, as a user runs it: the report, the same hash
//! twice, another seed → another hash, the exit codes of bad usage, a bad
//! config and Ctrl-C (a real SIGINT to the child process).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

mod support;

use support::{DEMO, run};

fn field<'a>(report: &'a str, name: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.strip_prefix(name))
        .map(str::trim)
        .unwrap_or_else(|| panic!("no {name} line in:\n{report}"))
}

#[test]
fn a_scripted_run_reports_and_reproduces_its_hash() {
    let args = [
        "--frames",
        "240",
        "--unpaced",
        "--entities",
        "3000",
        "--quiet",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_eq!(field(&out, "exit:"), "completed (code 0)");
    assert_eq!(field(&out, "backend:"), "fixed_point_16_16");
    assert!(field(&out, "ticks:").starts_with("240 "), "{out}");
    // 3000 + two bursts of 1000 − one burst + the attractor entity.
    assert_eq!(field(&out, "entities:"), "4001");
    let hash = field(&out, "state hash:").to_owned();
    let (_, again, _) = run(&args);
    assert_eq!(field(&again, "state hash:"), hash, "same run, same hash");

    let dir = std::env::temp_dir().join(format!("laige-demo-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seeded = dir.join("seed.toml");
    std::fs::write(&seeded, "[determinism]\nseed = 99\n").unwrap();
    let (code, other, _) = run(&[&args[..], &["--config", seeded.to_str().unwrap()]].concat());
    assert_eq!(code, 0);
    assert_ne!(
        field(&other, "state hash:"),
        hash,
        "another seed, another hash"
    );
    let float = dir.join("float.toml");
    std::fs::write(&float, "[determinism]\nmath = \"float_pinned_32\"\n").unwrap();
    let (code, f, _) = run(&[&args[..], &["--config", float.to_str().unwrap()]].concat());
    assert_eq!(code, 0);
    assert_eq!(field(&f, "backend:"), "float_pinned_32");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_usage_exits_2_and_a_bad_config_exits_1() {
    let (code, _, err) = run(&["--frames", "zero"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value 'zero' for '--frames <N>': expected an integer >= 1"),
        "{err}"
    );
    // A short message that points at the help, not the whole help.
    assert!(err.trim_end().ends_with("try '--help'."), "{err}");
    assert!(err.lines().count() <= 6, "{err}");

    let path = std::env::temp_dir().join(format!("laige-demo-bad-{}.toml", std::process::id()));
    std::fs::write(&path, "[loop]\ntick_rate_hz = 500\n").unwrap();
    let (code, _, err) = run(&["--config", path.to_str().unwrap(), "--frames", "1"]);
    let _ = std::fs::remove_file(&path);
    assert_eq!(code, 1);
    assert!(err.contains("loop.tick_rate_hz = 500"), "{err}");
}

#[test]
fn ctrl_c_ends_the_run_in_order_with_code_130() {
    let mut child = Command::new(DEMO)
        .args(["--seconds", "60", "--entities", "500"])
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    // Wait for the first progress line: the loop is running.
    let first = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.starts_with("laige-demo: t="));
    assert!(first.is_some(), "no progress line");
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}\n{stderr}");
    let report = rest.join("\n");
    assert_eq!(field(&report, "exit:"), "interrupted by SIGINT (code 130)");
    // The same ordered shutdown as every other exit.
    let shutdown = stderr.find("event=shutdown").expect("engine/shutdown");
    let summary = stderr
        .find("event=profiler_summary")
        .expect("profiler summary");
    let stopped = stderr.find("event=stopped").expect("engine/stopped");
    assert!(shutdown < summary && summary < stopped, "{stderr}");
    assert!(stderr.contains("reason=\"interrupted\""));
}
