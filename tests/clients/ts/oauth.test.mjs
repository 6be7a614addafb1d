// The official TypeScript MCP SDK with access tokens from a real
// authorization server: oidc-provider (tests/oauth/provider.js) issues JWT
// access tokens by client credentials with a resource indicator, and the
// SDK sends them as `Authorization: Bearer`. A token with the scope lists
// and calls the scoped tool; one without sees only the unscoped toolset and
// is refused the call (403, insufficient_scope).
//
// Run by .ci/run after `npm ci --prefix tests/oauth`; TOOLSCHEMA_BIN names
// the binary, TOOLSCHEMA_OAUTH_NODE the folder of the provider.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = process.env.TOOLSCHEMA_BIN ?? join(ROOT, "target", "debug", "toolschema");
const PROVIDER = process.env.TOOLSCHEMA_OAUTH_NODE ?? join(ROOT, "tests", "oauth");
const PAID = "0c1e55aa-0000-4000-8000-000000000001";

function freePort() {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Resolves once `child` writes a line starting with `prefix` on `stream`. */
function waitFor(child, stream, prefix) {
  return new Promise((done, fail) => {
    let seen = "";
    child[stream].on("data", (chunk) => {
      seen += chunk;
      if (seen.split("\n").some((line) => line.startsWith(prefix))) done();
    });
    child.on("exit", (code) => fail(new Error(`exited with ${code}: ${seen}`)));
  });
}

let dir, provider, server, issuer, url;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolschema-oauth-"));
  const providerPort = await freePort();
  issuer = `http://127.0.0.1:${providerPort}`;
  provider = spawn("node", [join(PROVIDER, "provider.js"), String(providerPort), join(dir, "keys.json")], {
    cwd: PROVIDER,
    stdio: ["ignore", "pipe", "ignore"],
  });
  await waitFor(provider, "stdout", "listening");
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  writeFileSync(
    join(dir, "catalog.toml"),
    `[authorization]
issuer = "${issuer}"
resource = "${url}"

[[tenant]]
id = "acme"

[[client]]
id = "finance"
tenant = "acme"
oauth_client_ids = ["finance-app"]
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
`,
  );
  server = spawn(BIN, ["serve", "--bind", `127.0.0.1:${port}`, "--demo", "--config", join(dir, "catalog.toml")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  await waitFor(server, "stderr", "toolschema is serving on ");
});

after(() => {
  server?.kill();
  provider?.kill();
  rmSync(dir, { recursive: true, force: true });
});

async function token(scope) {
  const form = new URLSearchParams({ grant_type: "client_credentials", resource: url });
  if (scope) form.set("scope", scope);
  const answer = await fetch(`${issuer}/token`, {
    method: "POST",
    body: form,
    headers: { authorization: `Basic ${Buffer.from("finance-app:finance-app-secret").toString("base64")}` },
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  return (await answer.json()).access_token;
}

async function connected(accessToken) {
  const client = new Client({ name: "toolschema-ts-oauth", version: "1.0.0" }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

test("a token with the scope lists and calls the scoped tool", async () => {
  const client = await connected(await token("invoices:read"));
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["billing.get-invoice", "billing.list-invoices"]);
  const invoice = await client.callTool({ name: "billing.get-invoice", arguments: { invoice_id: PAID } });
  assert.equal(invoice.isError ?? false, false);
  assert.equal(invoice.structuredContent.status, "paid");
  await client.close();
});

test("a token without the scope sees the unscoped tools and is refused the call", async () => {
  const client = await connected(await token());
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ["billing.list-invoices"]);
  await assert.rejects(
    client.callTool({ name: "billing.get-invoice", arguments: { invoice_id: PAID } }),
    (error) => String(error).includes("403") || String(error).includes("insufficient_scope"),
  );
  await client.close();
});
