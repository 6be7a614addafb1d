"""OpenTelemetry export of `toolschema serve`, end to end: the binary is
started with the standard `OTEL_*` variables pointing at a real
OpenTelemetry collector, Rotel (`rotel` from PyPI, pinned by .ci/run),
which receives OTLP over HTTP and forwards it by OTLP to a receiver run
here, whose requests are decoded with the official OTLP protobuf
definitions (`opentelemetry-proto` from PyPI). A `tools/call` carrying a
W3C trace context in `_meta` must come through as a server span of that
trace with the MCP attributes, and the operation duration as a histogram.

TOOLSCHEMA_BIN names the binary.
"""

import gzip
import http.server
import json
import os
import pathlib
import subprocess
import threading
import time

import httpx2
import rotel
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from test_gateway import free_port, wait_for_port

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"
PAID = "0c1e55aa-0000-4000-8000-000000000001"


class Receiver:
    """An OTLP/HTTP receiver: what arrives at /v1/traces and /v1/metrics,
    decoded."""

    def __init__(self):
        self.spans, self.metrics, self.content_types = [], [], set()
        received = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                received.content_types.add(self.headers["Content-Type"])
                if self.path == "/v1/traces":
                    request = trace_service_pb2.ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    for resource in request.resource_spans:
                        service = {a.key: a.value.string_value for a in resource.resource.attributes}
                        for scope in resource.scope_spans:
                            for span in scope.spans:
                                received.spans.append((service, scope.scope.name, span))
                    answer = trace_service_pb2.ExportTraceServiceResponse()
                elif self.path == "/v1/metrics":
                    request = metrics_service_pb2.ExportMetricsServiceRequest()
                    request.ParseFromString(body)
                    for resource in request.resource_metrics:
                        for scope in resource.scope_metrics:
                            received.metrics.extend(scope.metrics)
                    answer = metrics_service_pb2.ExportMetricsServiceResponse()
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                payload = answer.SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def attributes(span):
    found = {}
    for attribute in span.attributes:
        value = attribute.value
        found[attribute.key] = value.string_value or (str(value.int_value) if value.HasField("int_value") else "")
    return found


def start_collector(receiver):
    """Rotel receiving OTLP/HTTP on a free port, exporting to `receiver`."""
    port, grpc = free_port(), free_port()
    agent = pathlib.Path(rotel.__file__).parent / "rotel-agent"
    collector = subprocess.Popen(
        [
            str(agent), "start",
            "--otlp-http-endpoint", f"127.0.0.1:{port}",
            "--otlp-grpc-endpoint", f"127.0.0.1:{grpc}",
            "--exporter", "otlp",
            "--otlp-exporter-endpoint", f"http://127.0.0.1:{receiver.port}",
            "--otlp-exporter-protocol", "http",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, collector, "rotel")
    return collector, port


def test_a_tool_call_is_exported_by_otlp_as_a_span_of_the_callers_trace():
    receiver = Receiver()
    collector, collector_port = start_collector(receiver)
    env = dict(
        os.environ,
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{collector_port}",
        OTEL_SERVICE_NAME="billing-mcp",
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_METRIC_EXPORT_INTERVAL="300",
    )
    server = subprocess.Popen(
        [BIN, "serve", "--bind", "127.0.0.1:0"], cwd=ROOT, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        for line in server.stderr:
            if line.startswith("toolschema is serving on "):
                url = line.split()[4] + "/mcp"
                break
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        call = {
            "jsonrpc": "2.0", "id": 41, "method": "tools/call",
            "params": {
                "name": "billing.get-invoice", "arguments": {"invoice_id": PAID},
                "_meta": {"traceparent": f"00-{TRACE}-{PARENT}-01"},
            },
        }
        answer = httpx2.post(url, content=json.dumps(call), headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
            "Authorization": "Bearer demo-acme-finance-key",
        })
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["structuredContent"]["status"] == "paid"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (receiver.spans and receiver.metrics):
            time.sleep(0.1)
        calls = [s for s in receiver.spans if s[2].name == "tools/call billing.get-invoice"]
        assert len(calls) == 1, [s[2].name for s in receiver.spans]
        service, scope, span = calls[0]
        assert service["service.name"] == "billing-mcp"
        assert scope == "toolschema"
        assert span.trace_id.hex() == TRACE
        assert span.parent_span_id.hex() == PARENT
        assert span.kind == span.SPAN_KIND_SERVER
        found = attributes(span)
        assert found["mcp.method.name"] == "tools/call"
        assert found["gen_ai.tool.name"] == "billing.get-invoice"
        assert found["gen_ai.operation.name"] == "execute_tool"
        assert found["jsonrpc.request.id"] == "41"
        assert found["toolschema.client.id"] == "acme-finance"
        assert PAID not in json.dumps(found)
        names = {metric.name for metric in receiver.metrics}
        assert "mcp.server.operation.duration" in names, names
        assert "toolschema.tool.calls" in names, names
    finally:
        server.kill()
        server.wait()
        collector.kill()
        collector.wait()
        receiver.server.shutdown()
