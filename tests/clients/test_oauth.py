"""The OAuth 2.1 resource server against a real authorization server, with
the official Python MCP SDK as the client.

tests/oauth/provider.js runs oidc-provider (a certified OpenID provider,
pinned by tests/oauth/package-lock.json; .ci/run installs it) issuing JWT
access tokens with the client credentials grant and resource indicators.
`toolschema serve` runs a catalog whose `[authorization]` names it; tokens
are fetched from its token endpoint as a service would, and sent as
`Authorization: Bearer`.

TOOLSCHEMA_BIN names the binary; TOOLSCHEMA_OAUTH_NODE the folder whose
node_modules hold oidc-provider.
"""

import asyncio
import base64
import json
import os
import pathlib
import subprocess
import tempfile
import threading
import time

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from test_gateway import free_port, wait_for_port

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TOOLSCHEMA_BIN", str(ROOT / "target" / "debug" / "toolschema"))
NODE = pathlib.Path(os.environ.get("TOOLSCHEMA_OAUTH_NODE", str(ROOT / "tests" / "oauth")))

CATALOG = """
[authorization]
issuer = "{issuer}"
resource = "{resource}"
leeway_seconds = 0
introspection_client_id = "mcp-server"
introspection_secret_env = "MCP_INTROSPECTION_SECRET"

[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app", "finance-app-short", "opaque-app"]
toolsets = ["reading", "invoices"]

[[toolset]]
id = "reading"
tenant = "acme"
tools = ["billing.list-invoices"]

[[toolset]]
id = "invoices"
tenant = "acme"
tools = ["billing.get-invoice"]
scopes = ["invoices:read"]
"""


class Provider:
    """oidc-provider on `port`, signing with the keys in `keys`."""

    def __init__(self, port, keys):
        self.port, self.keys = port, keys
        self.issuer = f"http://127.0.0.1:{port}"

    def start(self):
        self.process = subprocess.Popen(
            ["node", str(NODE / "provider.js"), str(self.port), str(self.keys)],
            cwd=NODE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.port, self.process, "oidc-provider")
        return self

    def stop(self):
        self.process.kill()
        self.process.wait()

    def token(self, client, resource, scope=None):
        form = {"grant_type": "client_credentials", "resource": resource}
        if scope:
            form["scope"] = scope
        answer = httpx2.post(f"{self.issuer}/token", data=form, auth=(client, f"{client}-secret"))
        assert answer.status_code == 200, answer.text
        return answer.json()["access_token"]


class Served:
    """The provider, a second one (another issuer, the same keys), and the
    server whose catalog trusts the first."""

    def __enter__(self):
        self.dir = pathlib.Path(tempfile.mkdtemp())
        self.keys = self.dir / "keys.json"
        self.provider = Provider(free_port(), self.keys).start()
        self.impostor = Provider(free_port(), self.keys).start()
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/mcp"
        config = self.dir / "catalog.toml"
        config.write_text(CATALOG.format(issuer=self.provider.issuer, resource=self.url))
        self.server = subprocess.Popen(
            [BIN, "serve", "--bind", f"127.0.0.1:{port}", "--demo", "--config", str(config)],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, MCP_INTROSPECTION_SECRET="mcp-server-secret"),
        )
        for line in self.server.stderr:
            if line.startswith("toolschema is serving on "):
                break
        self.log = []
        threading.Thread(target=lambda: [self.log.append(line) for line in self.server.stderr], daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.kill()
        self.server.wait()
        self.provider.stop()
        self.impostor.stop()

    def post(self, token, body, url=None):
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-11-25",
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return httpx2.post(url or self.url, headers=headers, content=json.dumps(body))

    def refused(self, token):
        """The challenge of a 401 for `token`."""
        answer = self.post(token, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer.status_code == 401, answer.text
        challenge = answer.headers["www-authenticate"]
        assert 'error="invalid_token"' in challenge, challenge
        assert "resource_metadata=" in challenge, challenge
        return challenge


def sdk_client(url, token, mode):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def test_an_sdk_client_with_a_real_token_lists_only_what_its_client_and_scopes_allow():
    async def main(served):
        scoped = served.provider.token("finance-app", served.url, "invoices:read")
        async with sdk_client(served.url, scoped, "2026-07-28") as finance:
            listed = await finance.list_tools()
            assert sorted(t.name for t in listed.tools) == ["billing.get-invoice", "billing.list-invoices"]
            invoice = await finance.call_tool("billing.get-invoice", {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"})
            assert not invoice.is_error, invoice

        unscoped = served.provider.token("finance-app", served.url)
        # The handshake era, the same token rules.
        async with sdk_client(served.url, unscoped, "legacy") as finance:
            listed = await finance.list_tools()
            assert [t.name for t in listed.tools] == ["billing.list-invoices"]

    with Served() as served:
        # The protected resource metadata the challenge points to.
        answer = served.post(None, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer.status_code == 401
        challenge = answer.headers["www-authenticate"]
        metadata_url = challenge.split('resource_metadata="')[1].split('"')[0]
        assert metadata_url.endswith("/.well-known/oauth-protected-resource/mcp"), metadata_url
        metadata = httpx2.get(metadata_url).json()
        assert metadata["resource"] == served.url
        assert metadata["authorization_servers"] == [served.provider.issuer]
        assert metadata["scopes_supported"] == ["invoices:read"]
        asyncio.run(main(served))

        # Without the scope, calling the scoped tool is 403 with the scope.
        unscoped = served.provider.token("finance-app", served.url)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "billing.get-invoice", "arguments": {"invoice_id": "0c1e55aa-0000-4000-8000-000000000001"}}}
        answer = served.post(unscoped, call)
        assert answer.status_code == 403, answer.text
        assert 'error="insufficient_scope"' in answer.headers["www-authenticate"]
        assert 'scope="invoices:read"' in answer.headers["www-authenticate"]


def test_bad_tokens_from_a_real_authorization_server_are_refused():
    with Served() as served:
        # Expired: a token that lives one second, a second and a half later.
        short = served.provider.token("finance-app-short", served.url, "invoices:read")
        time.sleep(2.5)
        assert "expired" in served.refused(short)

        # For another resource.
        other = served.provider.token("finance-app", "https://other.example.com/mcp", "invoices:read")
        assert "another resource" in served.refused(other)

        # From another issuer (signed with the same keys).
        foreign = served.impostor.token("finance-app", served.url, "invoices:read")
        assert "another authorization server" in served.refused(foreign)

        # `alg: none`, with a real token's claims.
        real = served.provider.token("finance-app", served.url, "invoices:read")
        claims = real.split(".")[1]
        none = base64.urlsafe_b64encode(b'{"alg":"none","typ":"at+jwt"}').rstrip(b"=").decode()
        served.refused(f"{none}.{claims}.AAAA")

        # A client the provider knows and the catalog does not.
        stranger = served.provider.token("stranger-app", served.url, "invoices:read")
        assert "not a client of this server" in served.refused(stranger)

        # In the query string.
        answer = served.post(None, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                             url=f"{served.url}?access_token={real}")
        assert answer.status_code == 400, answer.text
        assert "invalid_request" in answer.headers["www-authenticate"]


def test_a_rotated_signing_key_is_picked_up():
    with Served() as served:
        before = served.provider.token("finance-app", served.url)
        assert served.post(before, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 200
        # The provider restarts signing with a new key, the old one still
        # published: the server has not seen the new key id, reads the keys
        # again, and accepts the token.
        keys = json.loads(served.keys.read_text())
        served.provider.stop()
        rotated = served.dir / "rotated.json"
        subprocess.run(
            ["node", "-e",
             "const {generateKeyPairSync, randomUUID} = require('node:crypto');"
             "const {privateKey} = generateKeyPairSync('ec', {namedCurve: 'P-256'});"
             "process.stdout.write(JSON.stringify({...privateKey.export({format: 'jwk'}), kid: randomUUID(), use: 'sig', alg: 'ES256'}));"],
            check=True, stdout=rotated.open("w"),
        )
        new_key = json.loads(rotated.read_text())
        served.keys.write_text(json.dumps({"keys": [new_key] + keys["keys"]}))
        served.provider.start()
        after = served.provider.token("finance-app", served.url)
        header = json.loads(base64.urlsafe_b64decode(after.split(".")[0] + "=="))
        assert header["kid"] == new_key["kid"]
        answer = served.post(after, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer.status_code == 200, answer.text
        # The old key's tokens still verify.
        assert served.post(before, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).status_code == 200


def test_an_opaque_token_is_checked_by_introspection():
    with Served() as served:
        opaque = served.provider.token("opaque-app", served.url, "invoices:read")
        assert opaque.count(".") != 2, "the provider issued a JWT, not an opaque token"
        answer = served.post(opaque, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert answer.status_code == 200, answer.text
        names = sorted(t["name"] for t in answer.json()["result"]["tools"])
        assert names == ["billing.get-invoice", "billing.list-invoices"]
        # A token the provider never issued: introspection says inactive.
        assert "not active" in served.refused("no-such-token-at-all")
