//! The disk fills during `laige-demo --record`: the run ends at the next
//! frame with a laige error naming the file, the tick and the OS error
//! (`No space left on device`), exit code 3, the ordered shutdown; the
//! file keeps every record written before the failure, and `--replay`
//! verifies that prefix as torn (exit 6).
//!
//! The full disk is real: a 16 KiB tmpfs mounted in a private mount
//! namespace (`unshare --mount`, which needs root or user namespaces; CI
//! runs as root), so nothing outside the child sees it and it vanishes
//! with the child. The child copies the file out before it ends. Where
//! `unshare` cannot mount, the test prints SKIPPED.

use std::process::{Command, Stdio};
use std::time::Duration;

use laige_engine::sim::replay::Replay;

use crate::{DEMO, Scratch, wait_with_output};

/// The tmpfs size: the header and ~330 ticks of the demo's records.
const SIZE: &str = "16k";

#[test]
fn a_full_disk_ends_the_recording_run_with_a_clear_error_and_a_valid_prefix() {
    let dir = Scratch::new("diskfull");
    let mount = dir.0.join("small");
    let out_file = dir.0.join("copied.lrp");
    std::fs::create_dir_all(&mount).unwrap();
    let record = mount.join("run.lrp");
    // Without keyframes (a keyframe of this world, free list included, is
    // larger than the whole tmpfs): the disk fills with input and hash
    // records, ~330 ticks of them.
    let config = dir.0.join("no-keyframes.toml");
    std::fs::write(&config, "[replay]\nkeyframe_interval = 0\n").unwrap();
    let script = format!(
        "mount -t tmpfs -o size={SIZE} tmpfs '{m}' || exit 99; \
         '{DEMO}' --unpaced --frames 3000 --entities 300 --quiet --config '{c}' --record '{r}'; rc=$?; \
         cp '{r}' '{o}'; exit $rc",
        c = config.display(),
        m = mount.display(),
        r = record.display(),
        o = out_file.display(),
    );
    let child = Command::new("unshare")
        .args(["--mount", "sh", "-c", &script])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(child) = child else {
        println!("SKIPPED: disk_full: no `unshare` to make a private tmpfs");
        return;
    };
    let (status, out, err) = wait_with_output(child, Duration::from_secs(60));
    if status.code() == Some(99) || (status.code() == Some(1) && err.contains("unshare")) {
        println!("SKIPPED: disk_full: cannot mount a private tmpfs here: {err}");
        return;
    }
    let ctx = format!("status {status:?}\n--- stdout\n{out}\n--- stderr\n{err}");
    assert_eq!(status.code(), Some(3), "{ctx}");
    // One clear error: the file, the tick, the OS error.
    let exit = out.lines().find(|l| l.starts_with("exit:")).expect(&ctx);
    let path = record.display().to_string();
    for part in [
        "system_failed (replay/io_failed",
        "record = ",
        path.as_str(),
        "recording stopped at tick = ",
        "No space left on device",
        "(code 3)",
    ] {
        assert!(exit.contains(part), "`{part}` not in `{exit}`");
    }
    assert_eq!(err.matches("event=system_failed").count(), 1, "{ctx}");
    assert!(err.contains("is incomplete"), "{ctx}");
    // The prefix: every complete record is there; the tail is torn.
    let prefix = Replay::read_prefix(&out_file).expect("a readable prefix");
    assert!(prefix.is_torn(), "{ctx}");
    let ticks = prefix.replay.ticks();
    assert!(ticks > 100, "only {ticks} ticks fit: {ctx}");
    let replayed = Command::new(DEMO)
        .args([
            "--replay",
            out_file.to_str().unwrap(),
            "--entities",
            "300",
            "--quiet",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replayed.stdout);
    assert_eq!(replayed.status.code(), Some(6), "{text}");
    assert!(text.contains(&format!("torn after tick {ticks}")), "{text}");
    println!(
        "disk_full: {SIZE} tmpfs filled after {ticks} ticks: exit 3 naming the file and ENOSPC; the prefix replays torn (exit 6)"
    );
}
