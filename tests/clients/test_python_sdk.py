"""The official Python MCP SDK as a real client of `toolschema serve`.

Over stdio and Streamable HTTP, in the handshake era (mode="legacy") and the
2026-07-28 revision, a client lists only its own client application's tools,
calls them, gets `isError` with every violation for bad arguments, hears
`notifications/tools/list_changed` after the configuration file changes, and
follows a tool's progress, gets its image and answers its question to the user
(elicitation: a request in the handshake era, an input-required result in
2026-07-28).

Run by .ci/run after `cargo build -p toolschema-cli`; TOOLSCHEMA_BIN names
the binary.
"""

import asyncio
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import json

import httpx2
import jsonschema
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
MODES = ["legacy", "2026-07-28", "auto"]
ASSISTANT_TOOLS = ["billing.get-invoice", "billing.list-invoices", "discover_tool_schema"]
GLOBEX_TOOLS = ["discover_tool_schema", "support.open-ticket", "support.search-tickets"]
PAID = "0c1e55aa-0000-4000-8000-000000000001"
SPEC = ROOT / "tests" / "spec" / "mcp"

# Every server started here records each message it sends, with its protocol
# version; the last test checks them all against the spec.
TRACE = pathlib.Path(tempfile.mkdtemp()) / "trace.jsonl"
os.environ["TOOLSCHEMA_TRACE"] = str(TRACE)


def stdio(client_id, *extra):
    return StdioServerParameters(
        command=BIN,
        args=["serve", "--stdio", "--client", client_id, *extra],
        cwd=str(ROOT),
        env={"TOOLSCHEMA_TRACE": str(TRACE)},
    )


async def exercise(client, expected_names):
    listed = await client.list_tools()
    names = [tool.name for tool in listed.tools]
    assert names == expected_names, names
    if "billing.get-invoice" in names:
        found = await client.call_tool("billing.get-invoice", {"invoice_id": PAID})
        assert not found.is_error, found
        assert found.structured_content["customer"] == "cust-42"
        refused = await client.call_tool("billing.list-invoices", {"customer": "", "limit": 0, "colour": "red"})
        assert refused.is_error
        text = refused.content[0].text
        for path in ["/customer", "/limit", "/colour"]:
            assert path in text, text
        schema = await client.call_tool("discover_tool_schema", {"name": "billing.list-invoices"})
        assert schema.structured_content["name"] == "billing.list-invoices"
    else:
        ticket = await client.call_tool(
            "support.open-ticket", {"subject": "Printer on fire", "body": "It is on fire.", "priority": "urgent"}
        )
        assert not ticket.is_error, ticket
        assert ticket.structured_content["number"] == 1001


ANALYST_TOOLS = ["billing.close-period", "billing.open-balances", "billing.statement-chart"]


async def exercise_analyst(client, progress):
    """Progress while a chart renders, the chart as an image, and a question
    to the user before a period closes (answered by the elicitation callback)."""
    listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == ANALYST_TOOLS

    seen = []

    async def on_progress(done, total, message):
        seen.append((done, total, message))

    chart = await client.call_tool("billing.statement-chart", {"customer": "cust-42"}, progress_callback=on_progress)
    assert not chart.is_error, chart
    kinds = [block.type for block in chart.content]
    assert kinds == ["text", "image"], kinds
    assert chart.content[1].mime_type == "image/png"
    assert chart.content[0].text == "Statement of cust-42: 2 invoice(s)."
    if progress:
        assert [done for done, _, _ in seen] == [0, 1, 2, 3], seen
        assert all(total == 3 for _, total, _ in seen), seen
        assert seen[0][2] == "reading invoices", seen

    closed = await client.call_tool("billing.close-period", {"period": "2026-11"})
    assert not closed.is_error, closed
    assert closed.content[0].text == "Period 2026-11 closed.", closed

    # A tool whose icon is embedded, and whose result is a list: as it is in
    # 2026-07-28, as {"result": [...]} for older revisions; either way what
    # the listed output schema describes (the SDK checks it too).
    tools = {tool.name: tool for tool in listed.tools}
    icon = tools["billing.statement-chart"].icons[0]
    assert icon.src.startswith("data:image/svg+xml;base64,"), icon
    balances = await client.call_tool("billing.open-balances", {"limit": 1})
    assert not balances.is_error, balances
    structured = balances.structured_content
    output = tools["billing.open-balances"].output_schema
    jsonschema.validate(structured, output)
    rows = structured if output["type"] == "array" else structured["result"]
    assert rows[0]["customer"] == "cust-42", structured


async def confirm(context, params):
    from mcp import types

    assert "2026-11" in params.message, params
    assert params.requested_schema["properties"]["confirm"]["type"] == "boolean"
    return types.ElicitResult(action="accept", content={"confirm": True})


def test_progress_images_and_questions_to_the_user():
    async def main(url):
        for mode in MODES:
            # stdio: a session; progress reaches the callback in every era.
            async with Client(stdio("acme-analyst"), mode=mode, elicitation_callback=confirm) as client:
                await exercise_analyst(client, progress=True)
            # HTTP: the call's answer streams its notifications and, in the
            # handshake era, the question; 2026-07-28 asks with an
            # input-required result instead.
            async with Client(http(url, "demo-acme-analyst-key"), mode=mode, elicitation_callback=confirm) as client:
                await exercise_analyst(client, progress=True)

    with HttpServer() as server:
        asyncio.run(main(server.url))


def test_stdio_in_both_eras():
    async def main():
        for mode in MODES:
            async with Client(stdio("acme-assistant"), mode=mode) as client:
                await exercise(client, ASSISTANT_TOOLS)
            async with Client(stdio("globex-support"), mode=mode) as client:
                await exercise(client, GLOBEX_TOOLS)

    asyncio.run(main())


class HttpServer:
    def __enter__(self):
        self.process = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0"], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        for line in self.process.stderr:
            match = re.match(r"toolschema is serving on (http://\S+)", line)
            if match:
                self.url = match.group(1) + "/mcp"
                break
        return self

    def __exit__(self, *exc):
        self.process.kill()
        self.process.wait()


def http(url, key):
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"X-API-Key": key}))


def test_streamable_http_in_both_eras():
    async def main(url):
        for mode in MODES:
            async with Client(http(url, "demo-acme-assistant-key"), mode=mode) as client:
                await exercise(client, ASSISTANT_TOOLS)
            async with Client(http(url, "demo-globex-support-key"), mode=mode) as client:
                await exercise(client, GLOBEX_TOOLS)

    with HttpServer() as server:
        asyncio.run(main(server.url))


def test_list_changed_after_the_configuration_changes():
    directory = tempfile.mkdtemp()
    config = pathlib.Path(directory) / "catalog.toml"
    text = (ROOT / "examples" / "catalog.toml").read_text()
    config.write_text(text)
    changed = asyncio.Event()

    async def on_message(message):
        if getattr(getattr(message, "root", message), "method", None) == "notifications/tools/list_changed":
            changed.set()

    async def main():
        params = stdio("globex-support", "--demo", "--config", str(config))
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            before = await client.list_tools()
            assert [t.name for t in before.tools] == GLOBEX_TOOLS
            config.write_text(text.replace('mode = "lazy"\ntools = ["support.open-ticket"', 'mode = "full"\ntools = ["support.open-ticket"'))
            await asyncio.wait_for(changed.wait(), timeout=15)
            after = await client.list_tools()
            assert [t.name for t in after.tools] == GLOBEX_TOOLS[1:], "the meta-tool left with the lazy mode"

    try:
        asyncio.run(main())
    finally:
        shutil.rmtree(directory)


def test_listen_streams_list_changes_over_http_and_stdio():
    """2026-07-28: `subscriptions/listen` acknowledges, then tells of changes."""
    directory = tempfile.mkdtemp()
    config = pathlib.Path(directory) / "catalog.toml"
    text = (ROOT / "examples" / "catalog.toml").read_text()
    full = text.replace('mode = "lazy"\ntools = ["support.open-ticket"', 'mode = "full"\ntools = ["support.open-ticket"')

    async def follow(client, flip_to):
        async with client.listen(tools_list_changed=True) as subscription:
            config.write_text(flip_to)
            async def first_event():
                async for event in subscription:
                    return event
            event = await asyncio.wait_for(first_event(), timeout=15)
            assert type(event).__name__ == "ToolsListChanged", event
        listed = await client.list_tools(cache_mode="refresh")
        return [t.name for t in listed.tools]

    async def main(url):
        async with Client(http(url, "demo-globex-support-key"), mode="2026-07-28") as client:
            assert await follow(client, full) == GLOBEX_TOOLS[1:]
        params = stdio("globex-support", "--demo", "--config", str(config))
        async with Client(params, mode="2026-07-28") as client:
            assert await follow(client, text) == GLOBEX_TOOLS

    config.write_text(text)
    try:
        process = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0", "--demo", "--config", str(config)], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        try:
            for line in process.stderr:
                match = re.match(r"toolschema is serving on (http://\S+)", line)
                if match:
                    url = match.group(1) + "/mcp"
                    break
            asyncio.run(main(url))
        finally:
            process.kill()
            process.wait()
    finally:
        shutil.rmtree(directory)


def test_search_mode_finds_describes_and_calls():
    """A toolset in search mode: its tools are not listed; `search_tools`
    finds them, `discover_tool_schema` describes several at once, and they
    are called by name (the SDK checks each structured result against the
    output schema listed for its tool)."""
    directory = tempfile.mkdtemp()
    config = pathlib.Path(directory) / "catalog.toml"
    text = (ROOT / "examples" / "catalog.toml").read_text()
    config.write_text(text.replace('mode = "lazy"\ntools = ["support.open-ticket"', 'mode = "search"\ntools = ["support.open-ticket"'))

    async def main():
        for mode in MODES:
            async with Client(stdio("globex-support", "--demo", "--config", str(config)), mode=mode) as client:
                listed = await client.list_tools()
                assert [t.name for t in listed.tools] == ["discover_tool_schema", "search_tools"], listed
                found = await client.call_tool("search_tools", {"query": "open a new support ticket", "limit": 2})
                assert not found.is_error, found
                hits = found.structured_content
                assert hits["tools"][0]["name"] == "support.open-ticket", hits
                assert hits["returned"] == len(hits["tools"]) <= 2, hits
                assert json.loads(found.content[0].text) == hits
                names = [tool["name"] for tool in hits["tools"]]
                described = await client.call_tool("discover_tool_schema", {"names": names})
                assert [tool["name"] for tool in described.structured_content["tools"]] == names
                schema = described.structured_content["tools"][0]["inputSchema"]
                arguments = {"subject": "Printer on fire", "body": "It is on fire.", "priority": "urgent"}
                jsonschema.validate(arguments, schema)
                ticket = await client.call_tool("support.open-ticket", arguments)
                assert not ticket.is_error, ticket
                assert ticket.structured_content["number"] == 1001
                hidden = await client.call_tool("search_tools", {"query": "refund a paid invoice"})
                assert all(tool["name"].startswith("support.") for tool in hidden.structured_content["tools"])

    try:
        asyncio.run(main())
    finally:
        shutil.rmtree(directory)


RESULTS = {
    "initialize": "InitializeResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "server/discover": "DiscoverResult",
}
NOTIFICATIONS = {
    "notifications/tools/list_changed": "ToolListChangedNotification",
    "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
    "notifications/progress": "ProgressNotification",
    "notifications/message": "LoggingMessageNotification",
}
# Requests the server sends the client (handshake era).
REQUESTS = {
    "elicitation/create": "ElicitRequest",
    "sampling/createMessage": "CreateMessageRequest",
}


def validator(version, definition, cache={}):
    key = (version, definition)
    if key not in cache:
        document = json.loads((SPEC / version / "schema.json").read_text())
        if "definitions" in document:
            schema = {"$schema": "http://json-schema.org/draft-07/schema#", "definitions": document["definitions"], "$ref": f"#/definitions/{definition}"}
        else:
            schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": document["$defs"], "$ref": f"#/$defs/{definition}"}
        cache[key] = jsonschema.validators.validator_for(schema)(schema)
    return cache[key]


def test_every_message_the_server_sent_conforms_to_its_protocol_version():
    """Runs last: every reply and notification of the sessions above."""
    entries = [json.loads(line) for line in TRACE.read_text().splitlines()]
    versions = {entry["version"] for entry in entries}
    assert {"2025-11-25", "2026-07-28"} <= versions, versions
    checked = 0
    for entry in entries:
        version, method, message = entry["version"], entry["method"], entry["message"]
        legacy = version == "2025-06-18"
        checks = []
        if "result" in message:
            checks.append(("JSONRPCResponse" if legacy else "JSONRPCResultResponse", message))
            if message["result"].get("resultType") == "input_required":
                checks.append(("InputRequiredResult", message["result"]))
            elif method in RESULTS:
                checks.append((RESULTS[method], message["result"]))
        elif "error" in message:
            checks.append(("JSONRPCError" if legacy else "JSONRPCErrorResponse", message))
        elif "id" in message:
            checks.append((REQUESTS[message["method"]], message))
        else:
            checks.append((NOTIFICATIONS[message["method"]], message))
        for definition, instance in checks:
            errors = [e.message for e in validator(version, definition).iter_errors(instance)]
            assert not errors, (version, definition, errors, instance)
            checked += 1
    assert checked >= 40, checked
