//! The `laige-signaling` binary (the browser tests' signaling server):
//! it prints the address it listens on and accepts connections there, and
//! a bad port argument ends it with its usage line and exit code 2. (Its
//! being a test here also makes `cargo test` build the binary, where the
//! browser step finds it.)

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_laige-signaling");

/// The binary started with `args`, and the first line it printed.
fn started(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("laige-signaling starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("its first line");
    (child, line)
}

#[test]
fn it_prints_its_address_and_accepts_connections_there() {
    let (mut child, line) = started(&[]);
    let _ = child.kill();
    let _ = child.wait();
    let port: u16 = line
        .trim()
        .strip_prefix("laige-signaling: ws://127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
    assert_ne!(port, 0);
    // The server is gone now; it accepted while it ran, so check with a
    // second one kept alive for the connection.
    let (mut again, line) = started(&[&port.to_string()]);
    let connected = TcpStream::connect(("127.0.0.1", port));
    let _ = again.kill();
    let _ = again.wait();
    assert_eq!(
        line.trim(),
        format!("laige-signaling: ws://127.0.0.1:{port}")
    );
    assert!(
        connected.is_ok(),
        "connecting to port {port}: {connected:?}"
    );
}

#[test]
fn a_bad_port_gets_the_usage_line_and_code_2() {
    let out = Command::new(BIN).arg("seventy").output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: laige-signaling [PORT]"));
}
