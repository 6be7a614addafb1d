"""Gateway tools against real downstreams, with the official Python MCP SDK
as the client.

`toolschema serve` runs examples/rest-gateway/catalog.toml: the Swagger
Petstore served by the Prism mock server (@stoplight/prism-cli), which
checks every request the gateway sends against petstore.json and answers a
malformed one with 422; a notes service served by json-server, which keeps
what is written, for create-then-read; and a pet insurance SOAP service
served by node-soap (the `soap` package) from insurance.wsdl, in SOAP 1.1
and 1.2 (tests/gateway/insurance.js). All come from npm, pinned by
tests/gateway/package-lock.json (.ci/run installs them).

TOOLSCHEMA_BIN names the binary; TOOLSCHEMA_GATEWAY_NODE the folder whose
node_modules hold prism, json-server and soap.
"""

import asyncio
import json
import os
import pathlib
import socket
import subprocess
import tempfile
import threading
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
NODE = pathlib.Path(os.environ.get("TOOLSCHEMA_GATEWAY_NODE", str(ROOT / "tests" / "gateway")))
EXAMPLE = ROOT / "examples" / "rest-gateway"

# The notes toolset is shown in DataStructureOnly mode: the meta-tool comes
# with it.
ASSISTANT_TOOLS = [
    "discover_tool_schema",
    "insurance.cancel-policy",
    "insurance.get-quote",
    "insurance.list-policies",
    "notes.create",
    "notes.get",
    "petstore.add-pet",
    "petstore.delete-pet",
    "petstore.find-pets-by-status",
    "petstore.get-order-by-id",
    "petstore.get-pet-by-id",
    "petstore.place-order",
]
LEAN_TOOLS = [
    "discover_tool_schema",
    "insurance.get-quote",
    "notes.get",
    "petstore.find-pets-by-status",
    "petstore.get-pet-by-id",
]
# Names of the downstreams' fields that are exposed under other names, and
# the SOAP service's elements, attributes and namespace: no list, schema,
# result or error may show them.
SOURCE_NAMES = [
    "photoUrls",
    "petId",
    "shipDate",
    "orderId",
    "body.text",
    "GetQuote",
    "CancelPolicy",
    "ageYears",
    "monthlyPremium",
    "validUntil",
    "policyNumber",
    "ownerEmail",
    "@currency",
    "@number",
    "urn:pets-inc",
    "Envelope",
    "faultcode",
    "soap:",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, name, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{name} did not listen on {port}")


class Downstreams:
    """Prism on the vendored Petstore, json-server on a notes file, and the
    gateway serving the example catalog pointed at them."""

    def __init__(self, edit=lambda config: config):
        # Changes the example's configuration before it is served.
        self.edit = edit

    def __enter__(self):
        self.dir = pathlib.Path(tempfile.mkdtemp())
        self.prism_port, self.notes_port, self.soap_port = free_port(), free_port(), free_port()
        self.prism_log = self.dir / "prism.log"
        bin_dir = NODE / "node_modules" / ".bin"
        self.prism = subprocess.Popen(
            [str(bin_dir / "prism"), "mock", str(EXAMPLE / "petstore.json"), "-h", "127.0.0.1", "-p", str(self.prism_port)],
            stdout=self.prism_log.open("w"),
            stderr=subprocess.STDOUT,
        )
        notes = self.dir / "notes.json"
        notes.write_text(json.dumps({"notes": [{"id": 1, "petId": 7, "body": {"text": "Likes carrots."}}]}))
        self.notes = subprocess.Popen(
            [str(bin_dir / "json-server"), "--host", "127.0.0.1", "--port", str(self.notes_port), str(notes)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.soap = subprocess.Popen(
            ["node", str(NODE / "insurance.js"), str(self.soap_port), str(EXAMPLE / "insurance.wsdl")],
            cwd=NODE,
            stdout=subprocess.DEVNULL,
            stderr=(self.dir / "soap.log").open("w"),
        )
        wait_for_port(self.prism_port, self.prism, "prism")
        wait_for_port(self.notes_port, self.notes, "json-server")
        wait_for_port(self.soap_port, self.soap, "node-soap")
        config = (EXAMPLE / "catalog.toml").read_text()
        config = config.replace("http://127.0.0.1:4010", f"http://127.0.0.1:{self.prism_port}")
        config = config.replace("http://127.0.0.1:4020", f"http://127.0.0.1:{self.notes_port}")
        config = self.edit(config.replace("http://127.0.0.1:4030", f"http://127.0.0.1:{self.soap_port}"))
        self.config = self.dir / "catalog.toml"
        self.config.write_text(config)
        env = dict(os.environ, PETSTORE_API_KEY="special-key-8d1f", PETSTORE_PETSTORE_AUTH="token-5c2a")
        self.server = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0", "--config", str(self.config)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for line in self.server.stderr:
            if line.startswith("toolschema is serving on "):
                self.url = line.split()[4] + "/mcp"
                break
        # The log goes on (reloads, refusals): kept, and read so the server
        # never blocks on a full pipe.
        self.log = []
        threading.Thread(target=lambda: [self.log.append(line) for line in self.server.stderr], daemon=True).start()
        return self

    def reloads(self):
        return [line for line in list(self.log) if "configuration reloaded" in line]

    def __exit__(self, *exc):
        for process in [self.server, self.prism, self.notes, self.soap]:
            process.kill()
            process.wait()

    def prism_refusals(self):
        """Every request Prism found malformed."""
        lines = self.prism_log.read_text().splitlines()
        return [line for line in lines if "Violation" in line or "UNPROCESSABLE" in line or "✖" in line]


def client(url, key, mode="2026-07-28"):
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"X-API-Key": key})), mode=mode)


def assert_exposed_only(text):
    for name in SOURCE_NAMES:
        assert name not in text, f"`{name}` reached the client: {text}"


def test_configured_tools_listed_and_called_through_prism_and_json_server():
    async def main(gateway):
        async with client(gateway.url, "pets-assistant-key") as assistant:
            listed = await assistant.list_tools()
            assert sorted(t.name for t in listed.tools) == ASSISTANT_TOOLS
            assert_exposed_only(json.dumps([t.model_dump(mode="json") for t in listed.tools]))
            pet = await assistant.call_tool("petstore.get-pet-by-id", {"pet_id": 1})
            assert not pet.is_error, pet
            assert pet.structured_content["name"] == "doggie"
            assert isinstance(pet.structured_content["photo_urls"], list)
            assert_exposed_only(json.dumps(pet.structured_content))

            found = await assistant.call_tool("petstore.find-pets-by-status", {"status": ["available", "sold"]})
            assert not found.is_error, found
            assert found.structured_content["items"][0]["status"] in {"available", "pending", "sold"}

            order = await assistant.call_tool(
                "petstore.place-order",
                {"pet_id": 7, "quantity": 2, "ship_date": "2026-12-01T10:00:00Z", "status": "placed", "complete": False},
            )
            assert not order.is_error, order
            assert "pet_id" in order.structured_content and "quantity" in order.structured_content

            # addPet's only documented answer is 405: a tool error carrying
            # the status, once Prism has accepted the request itself.
            added = await assistant.call_tool(
                "petstore.add-pet",
                {"name": "Rex", "photo_urls": ["https://pets.example/rex.png"], "tags": [{"id": 1, "name": "good"}], "status": "available"},
            )
            assert added.is_error
            assert "HTTP 405" in added.content[0].text, added.content[0].text

            # Bad arguments never reach the downstream, and say so in
            # exposed names.
            refused = await assistant.call_tool("petstore.place-order", {"quantity": "two", "petId": 7})
            assert refused.is_error
            text = refused.content[0].text
            assert "/quantity" in text and "/petId" in text, text

            # Create, then read back from the stateful service.
            created = await assistant.call_tool("notes.create", {"pet_id": 7, "text": "Needs a walk."})
            assert not created.is_error, created
            note_id = created.structured_content["note_id"]
            read = await assistant.call_tool("notes.get", {"note_id": note_id})
            assert read.structured_content == {"note_id": note_id, "pet_id": 7, "text": "Needs a walk."}
            missing = await assistant.call_tool("notes.get", {"note_id": 999})
            assert missing.is_error and "HTTP 404" in missing.content[0].text

        async with client(gateway.url, "pets-lean-key") as lean:
            listed = await lean.list_tools()
            assert sorted(t.name for t in listed.tools) == LEAN_TOOLS
            schema = await lean.call_tool("discover_tool_schema", {"name": "petstore.get-pet-by-id"})
            assert schema.structured_content["inputSchema"]["required"] == ["pet_id"]
            assert_exposed_only(json.dumps(schema.structured_content))
            pet = await lean.call_tool("petstore.get-pet-by-id", {"pet_id": 2})
            assert not pet.is_error, pet

    with Downstreams() as gateway:
        asyncio.run(main(gateway))
        refusals = gateway.prism_refusals()
        assert refusals == [], "Prism refused requests the gateway sent:\n" + "\n".join(refusals)


def test_publishing_a_draft_switches_a_connected_client_with_list_changed():
    """A second version of notes.get, first a draft (never served), then
    published by rewriting the file: the connected client hears
    list_changed, lists the new schema, and its calls reach the new
    version."""
    draft = """
[[gateway_tool.version]]
version = 2
status = "draft"
title = "Read a note"
description = "Returns one note by its id, with the pet it is about."
method = "GET"
path = "/notes/{id}"
read_only = true

[[gateway_tool.version.argument]]
name = "note"
source = "id"
in = "path"
type = "integer"
required = true

[[gateway_tool.version.result]]
name = "note"
source = "id"
type = "integer"
required = true

[[gateway_tool.version.result]]
name = "about_pet"
source = "petId"
type = "integer"
"""
    async def main(gateway):
        # The draft goes in right after notes.get's version 1.
        text = gateway.config.read_text()
        marker = 'name = "text"\nsource = "body.text"\ntype = "string"\n'
        at = text.rindex(marker) + len(marker)
        with_draft = text[:at] + draft + text[at:]
        published = with_draft.replace('version = 2\nstatus = "draft"', 'version = 2\nstatus = "published"')
        async with client(gateway.url, "pets-assistant-key") as assistant:
            # Loaded, the draft changes no client's list, and calls still
            # reach version 1.
            gateway.config.write_text(with_draft)
            deadline = time.monotonic() + 20
            while not gateway.reloads() and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            reloads = gateway.reloads()
            assert len(reloads) == 1 and "changed=0" in reloads[0], reloads
            before = await assistant.call_tool("notes.get", {"note_id": 1})
            assert before.structured_content == {"note_id": 1, "pet_id": 7, "text": "Likes carrots."}
            async with assistant.listen(tools_list_changed=True) as subscription:
                async def next_event():
                    async for event in subscription:
                        return event

                gateway.config.write_text(published)
                event = await asyncio.wait_for(next_event(), timeout=20)
                assert type(event).__name__ == "ToolsListChanged", event
            # The client refreshes its list, and with it the output schemas
            # it holds results to.
            listed = await assistant.list_tools(cache_mode="refresh")
            assert "notes.get" in [t.name for t in listed.tools]
            schema = await assistant.call_tool("discover_tool_schema", {"name": "notes.get"})
            assert schema.structured_content["inputSchema"]["required"] == ["note"], schema.structured_content
            after = await assistant.call_tool("notes.get", {"note": 1})
            assert not after.is_error, after
            assert after.structured_content == {"note": 1, "about_pet": 7}
            old = await assistant.call_tool("notes.get", {"note_id": 1})
            assert old.is_error and "/note_id" in old.content[0].text, old

    with Downstreams() as gateway:
        asyncio.run(main(gateway))


def tool_section(config, name):
    """The `[[gateway_tool]]` section of `name`, with its versions."""
    start = config.index(f'[[gateway_tool]]\nname = "{name}"')
    end = config.find("\n[[gateway_tool]]", start + 1)
    return config[start:] if end < 0 else config[start : end + 1]


QUOTE = {"species": "dog", "age_years": 3, "coverage": {"amount": 5000, "currency": "EUR"}, "extra": ["dental", "travel"]}


def test_soap_tools_listed_and_called_through_node_soap():
    """The tools `toolschema import wsdl` wrote from insurance.wsdl, served
    to both clients and called against node-soap: typed results read back
    from the answer's elements and attributes, repeated elements as lists,
    a stateful cancellation, and faults as tool errors with their text."""

    async def main(gateway):
        shown = []
        async with client(gateway.url, "pets-assistant-key") as assistant:
            listed = await assistant.list_tools()
            quote_tool = next(t for t in listed.tools if t.name == "insurance.get-quote")
            assert quote_tool.input_schema["required"] == ["species", "age_years", "coverage"]
            assert quote_tool.input_schema["properties"]["coverage"]["properties"]["currency"]["pattern"] == "^(?:[A-Z]{3})$"
            assert quote_tool.annotations.read_only_hint is True
            shown.append(json.dumps([t.model_dump(mode="json") for t in listed.tools]))

            quote = await assistant.call_tool("insurance.get-quote", QUOTE)
            assert not quote.is_error, quote
            # 18.50 a month for a dog, x1.3 at three years, +2.50 an extra.
            assert quote.structured_content == {
                "monthly_premium": 29.05,
                "valid_until": "2026-12-31",
                "exclusion": ["hereditary conditions"],
                "currency": "EUR",
            }
            shown.append(json.dumps(quote.structured_content))

            policies = await assistant.call_tool("insurance.list-policies", {"owner_email": "ana@example.com"})
            assert not policies.is_error, policies
            assert [(p["number"], p["status"], p["monthly_premium"]) for p in policies.structured_content["policy"]] == [
                ("PI-000123", "active", 21.4),
                ("PI-000124", "active", 12.9),
            ]
            none = await assistant.call_tool("insurance.list-policies", {"owner_email": "bo@example.com"})
            assert none.structured_content == {"policy": []}, none

            cancelled = await assistant.call_tool("insurance.cancel-policy", {"policy_number": "PI-000124"})
            assert cancelled.structured_content == {"cancelled": True, "effective_date": "2026-12-31"}, cancelled
            after = await assistant.call_tool("insurance.list-policies", {"owner_email": "ana@example.com"})
            assert after.structured_content["policy"][1]["status"] == "cancelled"
            # node-soap's faults: the model reads their text, never their code.
            again = await assistant.call_tool("insurance.cancel-policy", {"policy_number": "PI-000124"})
            assert again.is_error
            assert again.content[0].text == (
                "The downstream service refused the request: Policy PI-000124 is already cancelled. "
                "Check the arguments against the tool's description."
            )
            unknown = await assistant.call_tool("insurance.cancel-policy", {"policy_number": "PI-999999"})
            assert unknown.is_error and "No policy PI-999999 exists" in unknown.content[0].text
            # The WSDL's restrictions are checked before anything is sent.
            refused = await assistant.call_tool("insurance.cancel-policy", {"policy_number": "999"})
            assert refused.is_error and "/policy_number" in refused.content[0].text
            shown += [again.content[0].text, unknown.content[0].text, refused.content[0].text]

        async with client(gateway.url, "pets-lean-key") as lean:
            listed = await lean.list_tools()
            assert sorted(t.name for t in listed.tools) == LEAN_TOOLS
            schema = await lean.call_tool("discover_tool_schema", {"name": "insurance.get-quote"})
            assert schema.structured_content["outputSchema"]["properties"]["exclusion"]["items"]["type"] == "string"
            shown.append(json.dumps(schema.structured_content))
            quote = await lean.call_tool("insurance.get-quote", dict(QUOTE, extra=["dental"]))
            assert not quote.is_error, quote
            assert quote.structured_content["monthly_premium"] == 26.55
        for text in shown:
            assert_exposed_only(text)

    with Downstreams() as gateway:
        asyncio.run(main(gateway))


def test_soap_12_timeouts_server_faults_and_hostile_answers():
    """The same service through its SOAP 1.2 port; and the outcomes of a
    server fault, an answer later than the timeout, a truncated envelope
    and an envelope declaring an external entity (XXE)."""

    def edit(config):
        quote = tool_section(config, "insurance.get-quote")
        cancel = tool_section(config, "insurance.cancel-policy")
        port = config.split("http://127.0.0.1:")[-1].split("/")[0]
        extra = f"""
[[toolset]]
id = "soap-checks"
tenant = "pets-inc"
tools = ["v12.cancel-policy", "v12.get-quote", "checks.slow", "checks.broken", "checks.xxe", "checks.claim"]

[[downstream]]
id = "insurance12"
base_url = "http://127.0.0.1:{port}/insurance12"
protocol = "soap"
soap_version = "1.2"

[[downstream]]
id = "slow"
base_url = "http://127.0.0.1:{port}/insurance-slow"
protocol = "soap"
timeout_ms = 1000

[[downstream]]
id = "broken"
base_url = "http://127.0.0.1:{port}/broken"
protocol = "soap"

[[downstream]]
id = "xxe"
base_url = "http://127.0.0.1:{port}/xxe"
protocol = "soap"

[[gateway_tool]]
name = "checks.claim"
downstream = "insurance"

[[gateway_tool.version]]
version = 1
status = "published"
description = "Files a claim."
operation = "FileClaim"
namespace = "urn:pets-inc:insurance"
soap_action = "urn:pets-inc:insurance/FileClaim"

[[gateway_tool.version.argument]]
name = "policy_number"
source = "policyNumber"
type = "string"
required = true

[[gateway_tool.version.result]]
name = "claim_id"
source = "claimId"
type = "string"
"""
        renamed = [
            cancel.replace('"insurance.cancel-policy"', '"v12.cancel-policy"').replace('downstream = "insurance"', 'downstream = "insurance12"'),
            quote.replace('"insurance.get-quote"', '"v12.get-quote"').replace('downstream = "insurance"', 'downstream = "insurance12"'),
        ]
        for name in ["slow", "broken", "xxe"]:
            renamed.append(quote.replace('"insurance.get-quote"', f'"checks.{name}"').replace('downstream = "insurance"', f'downstream = "{name}"'))
        config = config.replace('toolsets = ["pets", "notes", "insurance"]', 'toolsets = ["pets", "notes", "insurance", "soap-checks"]')
        return config + extra + "\n".join(renamed)

    async def main(gateway):
        async with client(gateway.url, "pets-assistant-key") as assistant:
            quote = await assistant.call_tool("v12.get-quote", QUOTE)
            assert not quote.is_error, quote
            assert quote.structured_content["monthly_premium"] == 29.05
            cancelled = await assistant.call_tool("v12.cancel-policy", {"policy_number": "PI-000123"})
            assert cancelled.structured_content == {"cancelled": True, "effective_date": "2026-12-31"}, cancelled
            unknown = await assistant.call_tool("v12.cancel-policy", {"policy_number": "PI-999999"})
            assert unknown.is_error and unknown.content[0].text.startswith(
                "The downstream service refused the request: No policy PI-999999 exists."
            ), unknown
            claim = await assistant.call_tool("checks.claim", {"policy_number": "PI-000123"})
            assert claim.is_error
            assert claim.content[0].text == (
                "The downstream service failed: Claims are not accepted in this test service. The call may be retried."
            )
            slow = await assistant.call_tool("checks.slow", QUOTE)
            assert slow.is_error and "did not answer within 1000 ms" in slow.content[0].text, slow
            for name, says in [("broken", "not well-formed XML"), ("xxe", "document type declaration")]:
                try:
                    answer = await assistant.call_tool(f"checks.{name}", QUOTE)
                except Exception as error:  # the SDK raises JSON-RPC errors
                    text = str(error)
                else:
                    raise AssertionError(f"checks.{name} answered {answer}")
                assert says in text, text
                assert "root:" not in text and "passwd" not in text, text
                assert_exposed_only(text)
            # The server is still up and serving.
            again = await assistant.call_tool("v12.get-quote", QUOTE)
            assert not again.is_error

    with Downstreams(edit) as gateway:
        asyncio.run(main(gateway))


def test_rpc_literal_tools_imported_and_called_through_node_soap():
    """An rpc/literal WSDL (tests/gateway/stock-rpc.wsdl) imported with
    `toolschema import wsdl`, its drafts published as an operator would
    after review, served, and called against node-soap serving the same
    WSDL: the parts sent under the operation's element, the answer's one
    complex part read through, a fault's text returned."""
    import hashlib

    soap_port = free_port()
    work = pathlib.Path(tempfile.mkdtemp())
    with (work / "stock.log").open("w") as log:
        stock = subprocess.Popen(
            ["node", str(NODE / "stock.js"), str(soap_port)],
            cwd=NODE,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    server = None
    try:
        wait_for_port(soap_port, stock, "node-soap")
        imported = subprocess.run(
            [BIN, "import", "wsdl", str(ROOT / "tests" / "gateway" / "stock-rpc.wsdl"),
             "--downstream", "stock", "--prefix", "stock.", "--base-url", f"http://127.0.0.1:{soap_port}/stock"],
            capture_output=True, text=True, check=True,
        )
        assert "stock.get-quote" in imported.stdout and "stock.ping" in imported.stdout, imported.stderr
        key = "stock-analyst-key"
        head = (
            '[[tenant]]\nid = "markets"\n\n[[client]]\nid = "analyst"\ntenant = "markets"\n'
            f'api_keys = ["sha256:{hashlib.sha256(key.encode()).hexdigest()}"]\ntoolsets = ["stock"]\n\n'
            '[[toolset]]\nid = "stock"\ntenant = "markets"\nmode = "full"\ntools = ["stock.get-quote", "stock.ping"]\n\n'
        )
        config = work / "catalog.toml"
        config.write_text(head + imported.stdout.replace('status = "draft"', 'status = "published"'))
        checked = subprocess.run([BIN, "check", str(config)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        server = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0", "--config", str(config)],
            cwd=ROOT, stderr=subprocess.PIPE, text=True,
        )
        url = None
        for line in server.stderr:
            if line.startswith("toolschema is serving on "):
                url = line.split()[4] + "/mcp"
                break
        assert url, "the server did not start"
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()

        async def main():
            async with client(url, key) as analyst:
                listed = await analyst.list_tools()
                quote_tool = next(t for t in listed.tools if t.name == "stock.get-quote")
                assert quote_tool.description == "The average price of a stock over a window of days."
                assert quote_tool.input_schema["required"] == ["symbol", "window"]
                assert quote_tool.input_schema["properties"]["symbol"]["pattern"] == "^(?:[A-Z]{1,5})$"
                quote = await analyst.call_tool("stock.get-quote", {"symbol": "ACME", "window": {"from": "2026-12-01", "days": 4}})
                assert not quote.is_error, quote
                # 12.50 grown by 4%.
                assert quote.structured_content == {"symbol": "ACME", "price": 13.0, "days": 4}, quote
                unknown = await analyst.call_tool("stock.get-quote", {"symbol": "NOPE", "window": {"from": "2026-12-01"}})
                assert unknown.is_error and "No stock NOPE is listed." in unknown.content[0].text, unknown
                refused = await analyst.call_tool("stock.get-quote", {"symbol": "acme", "window": {"from": "2026-12-01"}})
                assert refused.is_error and "/symbol" in refused.content[0].text, refused
                ping = await analyst.call_tool("stock.ping", {})
                assert ping.structured_content == {"ok": True}, ping

        asyncio.run(main())
    finally:
        for process in [server, stock]:
            if process is not None:
                process.kill()
                process.wait()
