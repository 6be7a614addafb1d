"""The judge: are the requests the gateway sends the ones the API's own
contract accepts? (issue 47, item 1)

For each API description of a pinned sample, the judge starts Prism
(`prism mock --errors`: it validates every request against the document
and answers an invalid one with its violations), imports the document with
`toolschema import openapi --base-url` pointed at a recording proxy in front
of Prism (tests/judge/recorder.py), publishes the drafts to one client,
serves them with `toolschema serve`, and through the official MCP Python SDK
lists the tools and calls each twice: with only the required arguments,
then with every argument, generated from the input schema the tool
advertises (tests/judge/arguments.py; each set first checked against that
schema by `jsonschema`: a set that fails is the generator's failure,
counted apart and not sent). Each call gets a verdict from what was sent,
what Prism answered and what the client got (tests/judge/verdict.py).

AWS's documents are judged too (tests/judge/aws.py): Prism reads a copy
whose `#`/`?` path keys (`/#X-Amz-Target=…`, `/{Bucket}#uploads`) are
plain paths, and the recorder sends each request to the one whose selector
it satisfies (the import reads the original document); and every request
to a document signed by AWS's Signature Version 4 has its signature checked
by botocore, for the dummy credentials the judge gives and the region and
service the document says.

Prints a Markdown table (per document, totals, failure reasons with counts
and an example) and writes the whole record as JSON (`--json`). Fails
(exit 1) when the share of judged requests Prism found valid is under
`--min-valid`, or the share of calls answered under `--min-answered` (both
percentages, leaving out calls whose failure is shown to be the mock's).

    python tests/judge/judge.py --corpus DIR/package/api --json judge.json \
        [--every 56] [--offset 0] [--max-bytes 1000000] [--jobs 3] [--min-valid P] [--min-answered P]
        [--only DOCUMENT | --only PREFIX]   # e.g. --only amazonaws.com/ (of the sample)

TOOLSCHEMA_BIN names the binary (target/debug/toolschema by default);
TOOLSCHEMA_GATEWAY_NODE the folder whose node_modules hold Prism
(tests/gateway, `npm ci --prefix tests/gateway`).
"""

import argparse
import asyncio
import collections
import concurrent.futures
import hashlib
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from arguments import generate  # noqa: E402
from document import Document  # noqa: E402
from recorder import Recorder  # noqa: E402
from verdict import ANSWERED, MOCK, verdict  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
NODE = pathlib.Path(os.environ.get("TOOLSCHEMA_GATEWAY_NODE", str(ROOT / "tests" / "gateway")))
KEY = "judge-client-key"
MODES = ("required", "all")
CALL_TIMEOUT = 30


def sample(corpus, every, max_bytes, offset=0):
    """Every `every`-th JSON document of the directory (sorted by path; the
    first `offset` places later, for another sample chosen the same way),
    each with the reason it is skipped, or None."""
    files = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*.json"))
    chosen = []
    for index, name in enumerate(files, start=1):
        if (index - offset) % every:
            continue
        size = (corpus / name).stat().st_size
        if size > max_bytes:
            chosen.append((name, f"over {max_bytes:,} bytes ({size:,}): Prism and the debug build take too long"))
        else:
            chosen.append((name, None))
    return chosen


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prism:
    """`prism mock --errors` on one document, restarted if it dies."""

    def __init__(self, document, port, log):
        self.document, self.port, self.log = document, port, log
        self.crashes = 0
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [str(NODE / "node_modules" / ".bin" / "prism"), "mock", "--errors", "-h", "127.0.0.1", "-p", str(self.port), str(self.document)],
            stdout=self.log.open("a"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Prism exited with {self.process.returncode}: {tail(self.log)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"Prism did not listen within 90 s: {tail(self.log)}")

    def alive(self):
        """Whether Prism still runs; if not, starts it again."""
        if self.process.poll() is None:
            return True
        self.crashes += 1
        self.start()
        return False

    def stop(self):
        self.process.kill()
        self.process.wait()


def tail(log, lines=6):
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:])[-1200:]
    except OSError:
        return ""


def configuration(imported):
    """The imported drafts, published to one client application in Full mode,
    and the environment their credentials are read from (dummy values: Prism
    checks that credentials are present and well-formed, not what they are)."""
    parsed = tomllib.loads(imported)
    names = [tool["name"] for tool in parsed.get("gateway_tool", [])]
    env = {}
    for downstream in parsed.get("downstream", []):
        auth = downstream.get("auth") or []
        for credential in auth if isinstance(auth, list) else [auth]:
            for key, value in credential.items():
                if key.endswith("env"):
                    env[value] = {"user_env": "judge-user", "password_env": "judge-password"}.get(key, "judge-secret-8f3a")
    digest = hashlib.sha256(KEY.encode()).hexdigest()
    head = (
        '[[tenant]]\nid = "judge"\n\n'
        f'[[client]]\nid = "judge"\ntenant = "judge"\napi_keys = ["sha256:{digest}"]\ntoolsets = ["api"]\n\n'
        f'[[toolset]]\nid = "api"\ntenant = "judge"\nmode = "full"\ntools = {json.dumps(names)}\n\n'
    )
    return head + imported.replace('status = "draft"', 'status = "published"'), names, env


def judge_document(corpus, name):
    """Every call of one document, with its verdict."""
    path = corpus / name
    record = {"document": name, "calls": [], "generator_failures": [], "prism_crashes": 0}
    started = time.monotonic()
    document = Document(path)
    record["operations"] = document.operations()
    work = pathlib.Path(tempfile.mkdtemp(prefix="judge-"))
    prism_port = free_port()
    recorder = Recorder(prism_port, document.answer_breaks, route=document.forward, verify=document.verify)
    prism = server = None
    try:
        imported = subprocess.run(
            [BIN, "import", "openapi", str(path), "--downstream", "api", "--base-url", f"http://127.0.0.1:{recorder.port}"],
            capture_output=True, text=True, timeout=300,
        )
        record["import_skipped"] = [line for line in imported.stderr.splitlines() if line.startswith("skipped ")]
        if imported.returncode != 0:
            record["error"] = "import failed: " + imported.stderr.strip()[-600:]
            return record
        config, names, env = configuration(imported.stdout)
        record["auth"] = sorted({a.get("kind", "?") for d in tomllib.loads(imported.stdout).get("downstream", [])
                                 for a in (d.get("auth") if isinstance(d.get("auth"), list) else [d.get("auth") or {}]) if a})
        record["tools"] = len(names)
        if not names:
            return record
        (work / "catalog.toml").write_text(config)
        mocked = path
        rewritten = document.for_prism()
        if rewritten is not None:  # AWS's selector keys as plain paths, for Prism only
            mocked = work / "prism.json"
            mocked.write_text(json.dumps(rewritten))
        try:
            prism = Prism(mocked, prism_port, work / "prism.log")
        except RuntimeError as error:
            record["error"] = f"mock: {error}"
            record["mock_failed_to_start"] = True
            return record
        server = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0", "--config", str(work / "catalog.toml")],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=dict(os.environ, **env),
        )
        url, early = None, []
        for line in server.stderr:
            if line.startswith("toolschema is serving on "):
                url = line.split()[4] + "/mcp"
                break
            early.append(line)
        if url is None:
            record["error"] = "serve failed: " + "".join(early)[-600:]
            return record
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        asyncio.run(call_all(url, document, recorder, prism, record))
        record["prism_crashes"] = prism.crashes
    finally:
        record["seconds"] = round(time.monotonic() - started, 1)
        for process in (server, prism):
            if process is not None:
                (process.stop() if isinstance(process, Prism) else (process.kill(), process.wait()))
        recorder.close()
        shutil.rmtree(work, ignore_errors=True)
    return record


async def call_all(url, document, recorder, prism, record):
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
        record["listed"] = len(tools)
        for tool in sorted(tools, key=lambda t: t.name):
            for mode in MODES:
                arguments, wrong = generate(tool.input_schema, mode)
                if wrong:
                    record["generator_failures"].append({"tool": tool.name, "mode": mode, "arguments": arguments, "violations": wrong[:5]})
                    continue
                mark = len(recorder.exchanges)
                result = error = None
                try:
                    answer = await client.call_tool(tool.name, arguments)
                    text = " ".join(getattr(c, "text", "") for c in answer.content or [])
                    result = {"is_error": bool(answer.is_error), "text": text}
                except Exception as failure:  # JSON-RPC errors, the client's own output check
                    error = f"{type(failure).__name__}: {failure}"
                exchanges = recorder.exchanges[mark:]
                call = verdict(exchanges, result, error, document)
                if not prism.alive():
                    call = dict(call, outcome=MOCK, owner="mock", judged=None, reason="mock: Prism crashed",
                                message=f"Prism exited during the call: {tail(prism.log)}")
                call.update(tool=tool.name, mode=mode, arguments=arguments,
                            exchanges=[e.as_json() for e in exchanges],
                            result=(result["text"] if result else error or "")[:1000])
                record["calls"].append(call)


def totals(records):
    calls = [c for r in records for c in r["calls"]]
    count = collections.Counter(c["outcome"] for c in calls)
    judged = [c for c in calls if c["judged"] is not None]
    valid = sum(1 for c in judged if c["judged"])
    mock = count[MOCK]
    checked = [e["signature"] for c in calls for e in c["exchanges"] if e.get("signature")]
    return {
        "documents": len(records),
        "tools": sum(r.get("tools", 0) for r in records),
        "calls": len(calls),
        "generator_failures": sum(len(r["generator_failures"]) for r in records),
        "judged": len(judged),
        "judged_valid": valid,
        "answered": count[ANSWERED],
        # answers Prism had to be asked for again, its first one breaking the document
        "regenerated": sum(1 for c in calls if any(e.get("first_answer") for e in c["exchanges"])),
        "mock": mock,
        # requests whose SigV4 signature was checked (AWS's documents), and verified
        "signatures_checked": sum(1 for x in checked if x.get("verified") is not None),
        "signatures_verified": sum(1 for x in checked if x.get("verified")),
        "signatures_not_checkable": sum(1 for x in checked if x.get("verified") is None),
        "outcomes": dict(count),
        "valid_percent": percent(valid, len(judged)),
        "answered_percent": percent(count[ANSWERED], len(calls) - mock),
    }


def percent(part, whole):
    return round(100.0 * part / whole, 1) if whole else 100.0


def reasons(records, owner):
    grouped = collections.OrderedDict()
    for record in records:
        for call in record["calls"]:
            if call["owner"] != owner:
                continue
            entry = grouped.setdefault(call["reason"], {"reason": call["reason"], "calls": 0, "documents": set(), "example": None})
            entry["calls"] += 1
            entry["documents"].add(record["document"])
            if entry["example"] is None:
                entry["example"] = {"document": record["document"], "tool": call["tool"], "mode": call["mode"], "message": call["message"][:400]}
    out = sorted(grouped.values(), key=lambda e: (-e["calls"], e["reason"]))
    for entry in out:
        entry["documents"] = len(entry["documents"])
    return out


def markdown(records, skipped, summary, ours, mock, generator):
    lines = ["| document | operations | tools | calls | judged valid | answered | ours | mock's | not generated |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for record in records:
        calls = record["calls"]
        judged = [c for c in calls if c["judged"] is not None]
        valid = sum(1 for c in judged if c["judged"])
        answered = sum(1 for c in calls if c["outcome"] == ANSWERED)
        owned = sum(1 for c in calls if c["owner"] == "ours")
        mocked = sum(1 for c in calls if c["owner"] == "mock")
        note = f" ({record['error'][:80]})" if record.get("error") else ""
        lines.append(f"| {record['document']}{note} | {record['operations']} | {record.get('tools', 0)} | {len(calls)} | "
                     f"{valid}/{len(judged)} | {answered}/{len(calls) - mocked} | {owned} | {mocked} | {len(record['generator_failures'])} |")
    s = summary
    lines += [
        "",
        f"**{s['documents']} documents, {s['tools']} tools, {s['calls']} calls** ({s['generator_failures']} argument sets the generator could not make valid, not sent)",
        "",
        "| | result |",
        "|---|---|",
        f"| requests Prism judged valid | {s['judged_valid']}/{s['judged']} ({s['valid_percent']}%) of those Prism could judge; {s['judged_valid']}/{s['calls']} of all calls |",
        f"| calls that returned the API's answer | {s['answered']}/{s['calls'] - s['mock']} ({s['answered_percent']}%) leaving out the mock's failures; {s['answered']}/{s['calls']} of all calls |",
        f"| answers Prism gave again, generated from the schema, its first breaking the document | {s['regenerated']} |",
        f"| AWS Signature Version 4 verified by botocore | {s['signatures_verified']}/{s['signatures_checked']} requests to documents signed so"
        + (f" ({s['signatures_not_checkable']} the judge could not check)" if s["signatures_not_checkable"] else "") + " |",
        "| outcomes | " + ", ".join(f"{k}: {v}" for k, v in sorted(s["outcomes"].items(), key=lambda kv: -kv[1])) + " |",
        "",
    ]
    for title, entries in (("Ours (the request or the handling of the answer is wrong)", ours), ("The mock's (shown with Prism's evidence)", mock)):
        lines += [f"### {title}", "", "| calls | documents | reason | example |", "|---:|---:|---|---|"]
        for entry in entries:
            example = entry["example"]
            text = f"{example['document']} `{example['tool']}` ({example['mode']}): {example['message']}".replace("|", "\\|").replace("\n", " ")
            reason = entry["reason"].replace("|", "\\|")
            lines.append(f"| {entry['calls']} | {entry['documents']} | {reason} | {text[:300]} |")
        lines.append("")
    if generator:
        lines += ["### Argument sets the generator could not make valid (the judge's own failures)", ""]
        for item in generator[:20]:
            lines.append(f"- {item['document']} `{item['tool']}` ({item['mode']}): {'; '.join(item['violations'])[:200]}")
        lines.append("")
    lines += ["### Skipped documents", ""]
    lines += [f"- {name}: {why}" for name, why in skipped] or ["- none"]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", required=True, type=pathlib.Path, help="the directory's package/api folder")
    parser.add_argument("--every", type=int, default=56)
    parser.add_argument("--offset", type=int, default=0, help="shift the sample by this many documents (another sample chosen the same way)")
    parser.add_argument("--max-bytes", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--only", help="judge this one document (a path under --corpus), skipping nothing; "
                        "or, when no such file, the documents of the sample whose path starts so (e.g. amazonaws.com/)")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--min-valid", type=float, default=0.0)
    parser.add_argument("--min-answered", type=float, default=0.0)
    options = parser.parse_args()
    corpus = options.corpus.resolve()
    chosen = sample(corpus, options.every, options.max_bytes, options.offset)
    if options.only:
        only = options.only
        chosen = [(only, None)] if (corpus / only).is_file() else [(n, why) for n, why in chosen if n.startswith(only)]
    skipped = [(name, why) for name, why in chosen if why]
    names = [name for name, why in chosen if not why]
    started = time.monotonic()
    with concurrent.futures.ProcessPoolExecutor(options.jobs) as pool:
        records = list(pool.map(judge_document, [corpus] * len(names), names))
    summary = totals(records)
    summary["seconds"] = round(time.monotonic() - started, 1)
    ours, mock = reasons(records, "ours"), reasons(records, "mock")
    generator = [dict(item, document=r["document"]) for r in records for item in r["generator_failures"]]
    print(markdown(records, skipped, summary, ours, mock, generator))
    print(f"\n{summary['seconds']} s")
    if options.json:
        options.json.write_text(json.dumps({"summary": summary, "ours": ours, "mock": mock, "skipped": skipped,
                                            "documents": records}, indent=1, default=str))
    failed = []
    if summary["valid_percent"] < options.min_valid:
        failed.append(f"requests judged valid {summary['valid_percent']}% < floor {options.min_valid}%")
    if summary["answered_percent"] < options.min_answered:
        failed.append(f"calls answered {summary['answered_percent']}% < floor {options.min_answered}%")
    errors = [r for r in records if r.get("error") and not r.get("mock_failed_to_start")]
    for record in errors:
        failed.append(f"{record['document']}: {record['error']}")
    for line in failed:
        print("FAILED: " + line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
