//! A matchbox full-mesh signaling server on 127.0.0.1 (feature
//! `signaling`): every peer that connects is introduced to every other
//! one, whatever the room in its URL, so a test starts one server per
//! session.

use std::net::{Ipv4Addr, SocketAddr};

use matchbox_signaling::SignalingServer;

/// Serves on 127.0.0.1:`port` (0: any free port) on a one-thread tokio
/// runtime until the process ends; `bound` is told the port once the
/// server listens.
///
/// # Errors
/// The runtime, the bind or the server failing (as text).
pub fn serve(port: u16, bound: impl FnOnce(u16)) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("a tokio runtime: {e}"))?;
    rt.block_on(async move {
        let mut server =
            SignalingServer::full_mesh_builder(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
                .build();
        let addr = server
            .bind()
            .map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
        bound(addr.port());
        server.serve().await.map_err(|e| e.to_string())
    })
}

/// Starts [`serve`] on a thread of its own on any free port; returns the
/// port once the server listens.
///
/// ```no_run
/// let port = laige_testkit::signaling::start();
/// let room = format!("ws://127.0.0.1:{port}/laige");
/// # let _ = room;
/// ```
///
/// # Panics
/// When the server cannot start (a test's setup failing).
#[must_use]
pub fn start() -> u16 {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Err(e) = serve(0, |port| {
            let _ = tx.send(port);
        }) {
            panic!("the signaling server: {e}");
        }
    });
    rx.recv().expect("the signaling server started")
}
