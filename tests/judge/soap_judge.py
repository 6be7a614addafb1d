"""The SOAP judge: are the envelopes the gateway writes the ones the WSDL's
own XSD accepts? (issue 47, item 4)

For each WSDL of the sets named (`--set NAME=GLOB[,GLOB…]`), the judge
imports it with `toolschema import wsdl --base-url` pointed at a recording
server (each document its own path), publishes the drafts of all documents
to one client, serves them with `toolschema serve`, and through the official
MCP Python SDK calls every tool twice: with only the required arguments,
then with every argument, generated from the input schema the tool
advertises (tests/judge/arguments.py; a set its own schema refuses is the
generator's failure, counted apart and not sent). Credentials the import
sent from secrets (SOAP header blocks) get dummy values from the
environment. The recorder answers every call with a SOAP fault: only what
was sent is judged. Each envelope received is judged by the document's
schemas (tests/judge/soap_contract.py, PyPI `xmlschema`): the body's
element and every header block must be valid by their declarations.

Prints a Markdown table (per set and per document: operations, imported,
envelopes judged valid), the failures with their reasons, and writes the
record as JSON (`--json`). Fails (exit 1) when a set's share of operations
imported is under its `--min-imported NAME=P`, or its share of valid
envelopes under its `--min-valid NAME=P`, or a call sends no envelope, or a
document cannot be imported or its schemas read.

    python tests/judge/soap_judge.py --set onvif='DIR/wsdl/*.wsdl' \
        --set bingads='DIR/proxies/*/*.xml' --json soap.json --min-valid bingads=98 --min-imported bingads=90

TOOLSCHEMA_BIN names the binary (target/debug/toolschema by default).
"""

import argparse
import asyncio
import collections
import glob
import hashlib
import http.server
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import tomllib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from arguments import generate  # noqa: E402
from soap_contract import SOAP12, Contract  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
KEY = "soap-judge-client-key"
MODES = ("required", "all")
CALL_TIMEOUT = 30
FAULT = (
    '<?xml version="1.0"?><e:Envelope xmlns:e="{ns}"><e:Body><e:Fault>{inside}</e:Fault></e:Body></e:Envelope>'
)


class Recorder:
    """The downstream of every document: keeps each envelope by path and
    answers it with a SOAP fault of its version."""

    def __init__(self):
        self.received = collections.defaultdict(list)
        lock = threading.Lock()
        received = self.received

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with lock:
                    received[self.path].append(body)
                v12 = SOAP12.encode() in body[:400]
                inside = ("<e:Code><e:Value>e:Receiver</e:Value></e:Code><e:Reason><e:Text>judged</e:Text></e:Reason>"
                          if v12 else "<faultcode>e:Server</faultcode><faultstring>judged</faultstring>")
                answer = FAULT.format(ns=SOAP12 if v12 else "http://schemas.xmlsoap.org/soap/envelope/",
                                      inside=inside).encode()
                self.send_response(500)
                self.send_header("Content-Type", "application/soap+xml" if v12 else "text/xml")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def import_document(index, path, port):
    """One document imported as the downstream `w<index>` with tools
    `w<index>.…`: its record and its TOML."""
    record = {"document": path, "tools": [], "skipped": [], "calls": []}
    imported = subprocess.run(
        [BIN, "import", "wsdl", path, "--downstream", f"w{index}", "--prefix", f"w{index}.",
         "--base-url", f"http://127.0.0.1:{port}/w{index}"],
        capture_output=True, text=True, timeout=300,
    )
    record["skipped"] = [line[len("skipped "):] for line in imported.stderr.splitlines() if line.startswith("skipped ")]
    if imported.returncode != 0:
        # Refused as a whole, for its stated reason (a document of no SOAP
        # port): reported, not judged.
        record["refused"] = imported.stderr.strip().splitlines()[-1][-600:]
        return record, ""
    parsed = tomllib.loads(imported.stdout)
    record["tools"] = [tool["name"] for tool in parsed.get("gateway_tool", [])]
    return record, imported.stdout


def secrets_of(text):
    """A dummy value for every secret the imported tools read."""
    parsed = tomllib.loads(text) if text else {}
    return {
        block["secret"]: "judge-" + block["secret"].lower().replace("_", "-")
        for tool in parsed.get("gateway_tool", [])
        for version in tool.get("version", [])
        for block in version.get("soap_header", [])
        if "secret" in block
    }


def configuration(texts, names):
    digest = hashlib.sha256(KEY.encode()).hexdigest()
    head = (
        '[[tenant]]\nid = "judge"\n\n'
        f'[[client]]\nid = "judge"\ntenant = "judge"\napi_keys = ["sha256:{digest}"]\ntoolsets = ["soap"]\n\n'
        f'[[toolset]]\nid = "soap"\ntenant = "judge"\nmode = "full"\ntools = {json.dumps(names)}\n\n'
    )
    return head + "\n".join(texts).replace('status = "draft"', 'status = "published"')


def serve(config, env, work):
    (work / "catalog.toml").write_text(config)
    server = subprocess.Popen(
        [BIN, "serve", "--bind", "127.0.0.1:0", "--config", str(work / "catalog.toml")],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ, **env),
    )
    early = []
    for line in server.stderr:
        if line.startswith("toolschema is serving on "):
            threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
            return server, line.split()[4] + "/mcp"
        early.append(line)
    server.wait()
    raise RuntimeError("serve failed: " + "".join(early)[-1200:])


async def call_all(url, records, recorder, contracts):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"X-API-Key": KEY}, timeout=CALL_TIMEOUT + 5))
    async with Client(transport, mode="2026-07-28", read_timeout_seconds=CALL_TIMEOUT) as client:
        tools, cursor = [], None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += page.tools
            cursor = page.next_cursor
            if cursor is None:
                break
        for tool in sorted(tools, key=lambda t: t.name):
            index = int(tool.name.split(".", 1)[0][1:])
            record, path = records[index], f"/w{index}"
            for mode in MODES:
                arguments, wrong = generate(tool.input_schema, mode)
                call = {"tool": tool.name, "mode": mode, "arguments": arguments}
                if wrong:
                    call.update(outcome="generator", problems=[str(w)[:300] for w in wrong[:3]])
                    record["calls"].append(call)
                    continue
                mark = len(recorder.received[path])
                try:
                    answer = await client.call_tool(tool.name, arguments)
                    call["result"] = " ".join(getattr(c, "text", "") for c in answer.content or [])[:300]
                except Exception as failure:  # JSON-RPC errors
                    call["result"] = f"{type(failure).__name__}: {failure}"[:300]
                sent = recorder.received[path][mark:]
                if len(sent) != 1:
                    call.update(outcome="unsent", problems=[f"{len(sent)} envelopes sent: {call['result']}"])
                else:
                    problems = contracts[index].judge(sent[0])
                    call.update(outcome="invalid" if problems else "valid", problems=problems,
                                envelope=sent[0].decode("utf-8", "replace")[:2000])
                record["calls"].append(call)


def percent(part, whole):
    return round(100.0 * part / whole, 1) if whole else 100.0


def summary(records):
    calls = [c for r in records for c in r["calls"]]
    count = collections.Counter(c["outcome"] for c in calls)
    judged = count["valid"] + count["invalid"]
    imported = sum(len(r["tools"]) for r in records)
    operations = imported + sum(len(r["skipped"]) for r in records)
    return {
        "documents": len(records), "operations": operations, "imported": imported,
        "imported_percent": percent(imported, operations), "envelopes": judged, "valid": count["valid"],
        "valid_percent": percent(count["valid"], judged), "unsent": count["unsent"], "generator": count["generator"],
        "errors": sum(1 for r in records if r.get("error")),
    }


def markdown(sets):
    lines = ["| set | documents | operations | imported | envelopes valid by the XSD |", "|---|---:|---:|---:|---:|"]
    for name, records in sets.items():
        s = summary(records)
        lines.append(f"| {name} | {s['documents']} | {s['operations']} | {s['imported']} ({s['imported_percent']}%) "
                     f"| {s['valid']}/{s['envelopes']} ({s['valid_percent']}%) |")
    lines += ["", "| document | operations | imported | envelopes valid |", "|---|---:|---:|---:|"]
    for name, records in sets.items():
        for r in records:
            s = summary([r])
            label = f"{name}: {os.path.basename(r['document'])}"
            if r.get("error") or r.get("refused"):
                lines.append(f"| {label} | – | – | {(r.get('error') or 'refused: ' + r['refused'])[:160]} |")
            else:
                lines.append(f"| {label} | {s['operations']} | {s['imported']} | {s['valid']}/{s['envelopes']} |")
    failures = [(name, r, c) for name, records in sets.items() for r in records for c in r["calls"]
                if c["outcome"] not in ("valid",)]
    if failures:
        lines += ["", "### Envelopes refused, calls that sent none, arguments the generator got wrong", ""]
        reasons = collections.Counter()
        example = {}
        for name, r, c in failures:
            reason = f"{c['outcome']}: {(c['problems'] or ['?'])[0][:160]}"
            reasons[(name, reason)] += 1
            example.setdefault((name, reason), c["tool"] + " (" + c["mode"] + ")")
        for (name, reason), n in reasons.most_common(40):
            lines.append(f"- {name}, {n}×, {reason} — e.g. {example[(name, reason)]}")
    skipped = collections.Counter((name, s.split(": ", 1)[-1][:120]) for name, records in sets.items()
                                  for r in records for s in r["skipped"])
    if skipped:
        lines += ["", "### Operations not imported", ""]
        lines += [f"- {name}, {n}×: {reason}" for (name, reason), n in skipped.most_common(20)]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", required=True, metavar="NAME=GLOB[,GLOB]")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--min-valid", action="append", default=[], metavar="NAME=PERCENT")
    parser.add_argument("--min-imported", action="append", default=[], metavar="NAME=PERCENT")
    options = parser.parse_args()
    started = time.monotonic()
    chosen = []
    for spec in options.set:
        name, _, patterns = spec.partition("=")
        files = sorted(f for pattern in patterns.split(",") for f in glob.glob(pattern))
        if not files:
            parser.error(f"the set {name} has no document ({patterns})")
        chosen += [(name, os.path.abspath(f)) for f in files]
    recorder = Recorder()
    records, texts, contracts = [], [], []
    for index, (_, path) in enumerate(chosen):
        record, text = import_document(index, path, recorder.port)
        try:
            contracts.append(Contract(path))
        except Exception as error:  # the judge cannot read the document's schemas
            contracts.append(None)
            record["error"] = f"schemas unreadable: {type(error).__name__}: {str(error)[:300]}"
            record["tools"], text = [], ""
        records.append(record)
        texts.append(text)
    names = [tool for r in records for tool in r["tools"]]
    env = {}
    for text in texts:
        env.update(secrets_of(text))
    work = pathlib.Path(tempfile.mkdtemp(prefix="soap-judge-"))
    server, url = serve(configuration(texts, names), env, work)
    try:
        asyncio.run(call_all(url, records, recorder, contracts))
    finally:
        server.kill()
        server.wait()
        recorder.close()
    sets = collections.OrderedDict()
    for (name, _), record in zip(chosen, records):
        sets.setdefault(name, []).append(record)
    print(markdown(sets))
    seconds = round(time.monotonic() - started, 1)
    print(f"\n{seconds} s")
    if options.json:
        options.json.write_text(json.dumps({name: {"summary": summary(rs), "documents": rs} for name, rs in sets.items()},
                                           indent=1, default=str))
    imported_floors = dict(spec.partition("=")[::2] for spec in options.min_imported)
    valid_floors = dict(spec.partition("=")[::2] for spec in options.min_valid)
    failed = []
    for name, records in sets.items():
        s = summary(records)
        if name in valid_floors and s["valid_percent"] < float(valid_floors[name]):
            failed.append(f"{name}: envelopes valid {s['valid_percent']}% < floor {valid_floors[name]}%")
        if name in imported_floors and s["imported_percent"] < float(imported_floors[name]):
            failed.append(f"{name}: operations imported {s['imported_percent']}% < floor {imported_floors[name]}%")
        if s["unsent"]:
            failed.append(f"{name}: {s['unsent']} calls sent no envelope")
        for r in records:
            if r.get("error"):
                failed.append(f"{r['document']}: {r['error']}")
    for line in failed:
        print("FAILED: " + line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
