"""A recording proxy between the gateway and Prism.

The gateway's downstream points here; each request is passed to Prism as
it came (method, path and query as written, headers, body) and Prism's
answer is passed back as it came. Both are kept, so that every call is
judged by what was actually sent and what Prism actually said (its status,
its `sl-violations` header, its problem document), not by what the gateway
makes of it.

When Prism's answer breaks the document (its own 500 VIOLATIONS under
`--errors`, or the judge's check of a schema Prism could not compile), the
proxy asks Prism once more with `Prefer: dynamic=true, seed=judge`, for an
answer generated from the schema, and passes that one on; the first answer
is kept as evidence.

For AWS's documents (tests/judge/aws.py), Prism reads a copy whose path
keys with a selector (`/#X-Amz-Target=…`, `/{Bucket}#uploads`) are plain
paths of their own: `route` tells, for each request, which key it is and
the path Prism has for it, and the request goes there with its query,
headers and body as they came (the record keeps the target received, the
key and the target forwarded). `verify` checks each request's Signature
Version 4 from exactly what was received (method, target, the headers as
sent, the body's bytes), and the record keeps its finding.
"""

import http.client
import http.server
import json
import re
import threading

# Headers that belong to one connection, not to the request.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade"}
KEEP = 4000  # characters of a body kept as evidence
SEED = "judge"


def example_broke_document(status, headers, payload):
    """Prism's 500 for an answer of its own that breaks the document (with
    `--errors`), the request itself found valid."""
    if status != 500 or b"#VIOLATIONS" not in payload[:200]:
        return False
    raw = next((value for name, value in headers if name.lower() == "sl-violations"), "")
    return not any(v["location"][:1] == ["request"] and v["severity"] == "Error" for v in violations(raw))


# One violation in Prism's `sl-violations` header; the header is cut at 8 KB
# ("Too many violations! ..."), so each is read on its own.
VIOLATION = re.compile(r'\{"location":\[[^\]]*\],"severity":"\w+","code":(?:"[^"]*"|\d+),"message":"(?:[^"\\]|\\.)*"\}')


def violations(raw):
    """The violations Prism lists in its `sl-violations` header (a JSON list,
    possibly cut short): each with location, severity, code, message."""
    if not raw:
        return []
    try:
        listed = json.loads(raw)
    except ValueError:
        listed = [json.loads(m.group(0)) for m in VIOLATION.finditer(raw)]
    return [v for v in listed if isinstance(v, dict) and isinstance(v.get("location"), list)]


class Exchange:
    """One request the gateway sent and what Prism answered."""

    def __init__(self, method, target, headers, body):
        self.method = method
        self.target = target  # as received
        self.route = None  # the selector key it is (AWS's), or None
        self.forwarded = None  # the target Prism was asked under, when not `target`
        self.signature = None  # the SigV4 check's finding (aws.SigV4.check), or None
        self.headers = headers
        self.body = body
        self.status = None
        self.response_headers = {}
        self.response_body = ""
        self.error = None  # Prism could not be reached or broke the connection
        # Prism's first answer when it broke the document and was asked
        # again for one generated from the schema.
        self.first_answer = None

    def as_json(self):
        return {
            "method": self.method,
            "target": self.target,
            "route": self.route,
            "forwarded": self.forwarded,
            "signature": self.signature,
            "headers": self.headers,
            "body": self.body[:KEEP],
            "status": self.status,
            "sl_violations": self.response_headers.get("sl-violations"),
            "response_body": self.response_body[:KEEP],
            "error": self.error,
            "first_answer": self.first_answer,
        }


class Recorder:
    """Listens on a free loopback port and forwards to Prism on
    `upstream_port`; `exchanges` grows by one for each request."""

    def __init__(self, upstream_port, breaks=lambda method, target, status, headers, body, key=None: False,
                 route=lambda method, target, headers: None, verify=lambda method, target, headers, body, key=None: None):
        self.upstream_port = upstream_port
        # Whether an answer Prism gave breaks the document by the judge's
        # own check (Prism does not check schemas it cannot compile).
        self.breaks = breaks
        # (selector key, target for Prism) of a request, or None.
        self.route = route
        # The check of a request's signature, or None.
        self.verify = verify
        self.exchanges = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = read_chunked(self.rfile)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                exchange = Exchange(self.command, self.path, headers, body.decode("utf-8", "replace"))
                recorder.exchanges.append(exchange)
                target = self.path
                try:
                    pairs = list(self.headers.items())
                    routed = recorder.route(self.command, self.path, pairs)
                    if routed is not None:
                        exchange.route, target = routed
                        exchange.forwarded = target
                    exchange.signature = recorder.verify(self.command, self.path, pairs, body, exchange.route)
                except Exception as error:  # the judge's own failure: kept, the request still forwarded
                    exchange.signature = {"verified": None, "reason": "the judge could not check the signature",
                                          "detail": f"{type(error).__name__}: {error}"}
                try:
                    sent = {k: v for k, v in headers.items() if k.lower() != "content-length"}
                    if body or self.command in ("POST", "PUT", "PATCH"):
                        sent["Content-Length"] = str(len(body))
                    status, answer_headers, payload = recorder.ask(self.command, target, body, sent)
                    if example_broke_document(status, answer_headers, payload) or recorder.breaks(
                        self.command, self.path, status, answer_headers, payload, key=exchange.route
                    ):
                        # Prism's own answer breaks the document: ask once
                        # more for one generated from the schema, seeded.
                        exchange.first_answer = {"status": status, "body": payload.decode("utf-8", "replace")[:KEEP]}
                        sent = {k: v for k, v in sent.items() if k.lower() != "prefer"}
                        sent["Prefer"] = f"dynamic=true, seed={SEED}"
                        status, answer_headers, payload = recorder.ask(self.command, target, body, sent)
                    exchange.status = status
                    exchange.response_headers = {k.lower(): v for k, v in answer_headers}
                    exchange.response_body = payload.decode("utf-8", "replace")
                    self.send_response(status)
                    for name, value in answer_headers:
                        if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except Exception as error:  # Prism down, or broke the connection
                    exchange.error = f"{type(error).__name__}: {error}"
                    self.send_response(502)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ask(self, method, target, body, headers):
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        try:
            upstream.request(method, target, body=body or None, headers=headers)
            answer = upstream.getresponse()
            return answer.status, answer.getheaders(), answer.read()
        finally:
            upstream.close()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def read_chunked(stream):
    out = b""
    while True:
        size = int(stream.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            stream.readline()
            return out
        out += stream.read(size)
        stream.readline()
