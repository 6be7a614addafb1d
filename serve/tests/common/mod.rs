//! What the serving tests share.

#![allow(unreachable_pub, dead_code)]

use std::net::SocketAddr;
use std::sync::mpsc;

use toolschema_serve::Server;

/// Runs `server` on a free loopback port in a runtime of its own; the
/// address and the sender that stops it.
pub fn spawn<S: Send + Sync + 'static>(server: Server<S>) -> (SocketAddr, mpsc::Sender<()>) {
    let (ready, address) = mpsc::channel();
    let (stop, stopped) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let http = server.bind_http("127.0.0.1:0").await.expect("binds");
            ready.send(http.local_addr()).expect("send");
            let until = async move {
                let _ = tokio::task::spawn_blocking(move || stopped.recv()).await;
            };
            http.run_until(until).await.expect("serves");
        });
    });
    (address.recv().expect("the server starts"), stop)
}
