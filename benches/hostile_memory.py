#!/usr/bin/env python3
"""Peak resident memory of a `toolschema serve` process under large hostile
requests (benches/README.md, "Memory under hostile requests").

    cargo build --release -p toolschema-cli
    python3 benches/hostile_memory.py [path/to/toolschema]

Starts the binary on the demo catalog (an ephemeral loopback port), then
for each attack sends ROUNDS rounds of CONCURRENT requests at once on fresh
connections, and prints the server's resident memory before, its peak
(VmHWM) and after, in MiB. The attacks:

- `unknown-key`: a 1 MiB JSON body with an API key no client holds (401);
- `unknown-members`: a valid key and a `tools/call` whose arguments are
  70,000 members the tool does not have (a 910 KB body; refused, 422 or
  a JSON-RPC error);
- `large-string`: a valid key and one 1 MiB string argument.

Each attack runs in a fresh server process, so that one's peak is its own.
Environment: CONCURRENT (16), ROUNDS (20), ATTACKS (names, comma
separated; all by default), and any allocator variable (MIMALLOC_*) is
passed to the server.
"""

import os
import pathlib
import socket
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONCURRENT = int(os.environ.get("CONCURRENT", "16"))
ROUNDS = int(os.environ.get("ROUNDS", "20"))
KEY = "demo-acme-finance-key"


def mib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return 0.0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, key, body):
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(head + body)
        status = b""
        try:
            while b"\r\n" not in status:
                chunk = s.recv(4096)
                if not chunk:
                    break
                status += chunk
            while s.recv(65536):
                pass
        except OSError:
            pass
    return status.split(b" ")[1:2]


def attacks():
    call = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"billing.get-invoice","arguments":%s}}'
    members = "{" + ",".join(f'"k{i:05}":1' for i in range(70_000)) + "}"
    string = '{"invoice_id":"%s"}' % ("a" * (1 << 20))
    junk = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"%s"}}' % ("x" * (1 << 20))
    return {
        "unknown-key": ("tsk_not-a-key-anyone-holds", junk.encode()),
        "unknown-members": (KEY, (call % members).encode()),
        "large-string": (KEY, (call % string).encode()),
    }


def run(binary, name, key, body):
    port = free_port()
    env = dict(os.environ)
    server = subprocess.Popen(
        [binary, "serve", "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        time.sleep(0.5)
        start = mib(server.pid, "VmRSS:")
        statuses = {}
        for _ in range(ROUNDS):
            threads = []
            results = []
            for _ in range(CONCURRENT):
                t = threading.Thread(target=lambda: results.append(request(port, key, body)))
                t.start()
                threads.append(t)
            for t in threads:
                t.join()
            for status in results:
                code = status[0].decode() if status else "none"
                statuses[code] = statuses.get(code, 0) + 1
        peak = mib(server.pid, "VmHWM:")
        time.sleep(2)
        end = mib(server.pid, "VmRSS:")
        print(
            f"| {name} | {len(body) / 1024:,.0f} KiB | {CONCURRENT} x {ROUNDS} | "
            f"{', '.join(f'{k}: {v}' for k, v in sorted(statuses.items()))} | "
            f"{start:.0f} / {peak:.0f} / {end:.0f} |",
            flush=True,
        )
    finally:
        server.terminate()
        server.wait()


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/toolschema")
    print("| attack | body | concurrent x rounds | answers | RSS start / peak / end (MiB) |")
    print("| --- | --- | --- | --- | --- |")
    chosen = os.environ.get("ATTACKS")
    for name, (key, body) in attacks().items():
        if chosen is None or name in chosen.split(","):
            run(binary, name, key, body)


if __name__ == "__main__":
    main()
