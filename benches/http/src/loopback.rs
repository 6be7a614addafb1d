//! A client of a server over loopback: one request at a time on a
//! kept-alive connection, read whole.

use std::io::{Read, Write};
use std::net::TcpStream;

/// One request and its whole response on a kept-alive connection.
pub fn round_trip(stream: &mut TcpStream, request: &[u8], buffer: &mut Vec<u8>) -> usize {
    stream.write_all(request).expect("write");
    buffer.clear();
    let mut chunk = [0u8; 64 * 1024];
    let (head_end, length) = loop {
        let n = stream.read(&mut chunk).expect("read");
        assert!(n > 0, "the server closed the connection");
        buffer.extend_from_slice(&chunk[..n]);
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap_or(0))
                })
                .expect("a content length");
            break (end + 4, length);
        }
    };
    while buffer.len() < head_end + length {
        let n = stream.read(&mut chunk).expect("read");
        assert!(n > 0, "the server closed the connection");
        buffer.extend_from_slice(&chunk[..n]);
    }
    length
}

/// A `tools/list` request over HTTP (protocol 2026-07-28), with `key` as
/// its API key if any.
pub fn list_request(key: Option<&str>) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let key = key.map_or(String::new(), |key| format!("X-API-Key: {key}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n{key}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}
