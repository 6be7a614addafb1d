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

/// The client's end of a service served as over stdio on an in-memory pipe.
#[cfg(feature = "stdio")]
pub struct Pipe {
    /// The service's replies, a line each.
    pub lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    /// Where the client writes its messages.
    pub writer: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    /// The serving task: it ends when the writer is shut down.
    pub serving: tokio::task::JoinHandle<Result<(), toolschema_serve::ServeError>>,
}

/// Serves `server` as over stdio on an in-memory pipe, in the current
/// runtime.
#[cfg(feature = "stdio")]
pub fn stdio_pipe<S: Send + Sync + 'static>(server: Server<S>) -> Pipe {
    use tokio::io::AsyncBufReadExt;
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_end);
    let serving = tokio::spawn(server.serve_on(server_read, server_write));
    let (client_read, writer) = tokio::io::split(client_end);
    Pipe {
        lines: tokio::io::BufReader::new(client_read).lines(),
        writer,
        serving,
    }
}
