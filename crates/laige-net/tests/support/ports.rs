//! Loopback ports for the tests' peers (also the demo's network tests'
//! support, which includes this file).

use std::net::UdpSocket;

/// A free UDP port on loopback (bound, read, released).
///
/// A port is handed out once per process: tests run in parallel, and the
/// operating system may offer a port read and released here again before
/// its first taker binds it.
pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        let port = UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}
