// The official TypeScript MCP SDK as a real client of `toolschema serve`.
//
// Over stdio and Streamable HTTP: a client lists only its own client
// application's tools, calls them (the SDK checks every `structuredContent`
// against the tool's advertised `outputSchema` and throws if it does not
// conform), gets `isError` with every violation for bad arguments, is refused
// tools of another tenant as unknown, uses `discover_tool_schema`, hears
// `notifications/tools/list_changed` after the configuration file changes,
// and follows a tool's progress, gets its image, and answers its question to
// the user (elicitation).
//
// Run by .ci/run after `cargo build -p toolschema-cli`; TOOLSCHEMA_BIN names
// the binary.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const BIN = process.env.TOOLSCHEMA_BIN ?? join(ROOT, "target", "debug", "toolschema");
const FINANCE_TOOLS = ["billing.get-invoice", "billing.list-invoices", "billing.refund", "billing.void-invoice"];
const GLOBEX_TOOLS = ["discover_tool_schema", "support.open-ticket", "support.search-tickets"];
const ANALYST_TOOLS = ["billing.close-period", "billing.open-balances", "billing.statement-chart"];
const PAID = "0c1e55aa-0000-4000-8000-000000000001";
const DEMO_CONFIG = readFileSync(join(ROOT, "examples", "catalog.toml"), "utf8");
// The same catalog with Globex's open-ticket tool in Full mode: the toolset
// keeps one lazy tool, and the meta-tool stays.
const FLIPPED_CONFIG = DEMO_CONFIG.replace(
  'mode = "lazy"\ntools = ["support.open-ticket", "support.search-tickets"]',
  'mode = "full"\ntools = ["support.open-ticket", "support.search-tickets"]',
);

// The same catalog with Globex's toolset in search mode: its tools are not
// listed, `search_tools` finds them.
const SEARCH_CONFIG = DEMO_CONFIG.replace(
  'mode = "lazy"\ntools = ["support.open-ticket", "support.search-tickets"]',
  'mode = "search"\ntools = ["support.open-ticket", "support.search-tickets"]',
);

async function exerciseSearch(client) {
  const listed = await client.listTools();
  assert.deepEqual(
    listed.tools.map((tool) => tool.name),
    ["discover_tool_schema", "search_tools"],
  );
  // The SDK checks each structuredContent against the listed outputSchema.
  const found = await client.callTool({
    name: "search_tools",
    arguments: { query: "open a new support ticket", limit: 2, detail: "schema" },
  });
  assert.ok(!found.isError, JSON.stringify(found));
  const hits = found.structuredContent;
  assert.equal(hits.tools[0].name, "support.open-ticket");
  assert.equal(hits.returned, hits.tools.length);
  assert.deepEqual(JSON.parse(found.content[0].text), hits);
  assert.equal(hits.tools[0].inputSchema.type, "object");
  const names = hits.tools.map((tool) => tool.name);
  const described = await client.callTool({ name: "discover_tool_schema", arguments: { names } });
  assert.deepEqual(
    described.structuredContent.tools.map((tool) => tool.name),
    names,
  );
  assert.deepEqual(described.structuredContent.tools[0].inputSchema, hits.tools[0].inputSchema);
  const ticket = await client.callTool({
    name: "support.open-ticket",
    arguments: { subject: "Printer on fire", body: "It is on fire.", priority: "urgent" },
  });
  assert.ok(!ticket.isError, JSON.stringify(ticket));
  assert.equal(ticket.structuredContent.number, 1001);
  const refused = await client.callTool({ name: "search_tools", arguments: { query: "", limit: 99 } });
  assert.equal(refused.isError, true);
  assert.ok(refused.content[0].text.includes("/limit"), refused.content[0].text);
}

function newClient() {
  return new Client({ name: "toolschema-ts-test", version: "1.0.0" }, { capabilities: {} });
}

function stdio(clientId, ...extra) {
  return new StdioClientTransport({
    command: BIN,
    args: ["serve", "--stdio", "--client", clientId, ...extra],
    cwd: ROOT,
    stderr: "ignore",
  });
}

function http(url, key) {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { "X-API-Key": key } },
  });
}

/// Starts `toolschema serve` on a free loopback port; resolves to its /mcp URL.
function serveHttp(...extra) {
  const child = spawn(BIN, ["serve", "--bind", "127.0.0.1:0", ...extra], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return new Promise((resolveUrl, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk) => {
      seen += chunk;
      // Only a whole line: the address may arrive in pieces.
      const match = seen.match(/toolschema is serving on (http:\/\/\S+)\n/);
      if (match) {
        resolveUrl({ url: `${match[1]}/mcp`, child });
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
}

async function withClient(transport, work) {
  const client = newClient();
  await client.connect(transport);
  try {
    return await work(client);
  } finally {
    await client.close();
  }
}

async function exerciseFinance(client) {
  const listed = await client.listTools();
  assert.deepEqual(
    listed.tools.map((tool) => tool.name),
    FINANCE_TOOLS,
  );
  for (const tool of listed.tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
  }
  // The SDK validates structuredContent against the listed outputSchema and
  // throws if it breaks it.
  const found = await client.callTool({ name: "billing.get-invoice", arguments: { invoice_id: PAID } });
  assert.ok(!found.isError, JSON.stringify(found));
  assert.equal(found.structuredContent.customer, "cust-42");
  assert.deepEqual(JSON.parse(found.content[0].text), found.structuredContent);

  const refused = await client.callTool({
    name: "billing.list-invoices",
    arguments: { customer: "", limit: 0, colour: "red" },
  });
  assert.equal(refused.isError, true);
  for (const path of ["/customer", "/limit", "/colour"]) {
    assert.ok(refused.content[0].text.includes(path), refused.content[0].text);
  }

  // Another tenant's tool is refused as if it did not exist.
  await assert.rejects(
    client.callTool({ name: "support.open-ticket", arguments: { subject: "s", body: "b", priority: "low" } }),
    (error) => error instanceof McpError && error.code === -32602,
  );
}

async function exerciseGlobex(client) {
  const listed = await client.listTools();
  assert.deepEqual(
    listed.tools.map((tool) => tool.name),
    GLOBEX_TOOLS,
  );
  const schema = await client.callTool({ name: "discover_tool_schema", arguments: { name: "support.open-ticket" } });
  assert.ok(!schema.isError, JSON.stringify(schema));
  assert.equal(schema.structuredContent.name, "support.open-ticket");
  assert.ok(schema.structuredContent.inputSchema.properties.subject, JSON.stringify(schema.structuredContent));
  const ticket = await client.callTool({
    name: "support.open-ticket",
    arguments: { subject: "Printer on fire", body: "It is on fire.", priority: "urgent" },
  });
  assert.ok(!ticket.isError, JSON.stringify(ticket));
  assert.equal(ticket.structuredContent.number, 1001);
}

/// A client that can answer the user's questions: it confirms closing a
/// period.
function askingClient() {
  const client = new Client(
    { name: "toolschema-ts-test", version: "1.0.0" },
    { capabilities: { elicitation: {} } },
  );
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    assert.match(request.params.message, /2026-11/);
    assert.equal(request.params.requestedSchema.properties.confirm.type, "boolean");
    return { action: "accept", content: { confirm: true } };
  });
  return client;
}

/// Progress while a chart renders, the chart as an image, and a question
/// to the user before a period closes.
///
/// Over stdio this SDK may drop progress notifications: it runs
/// notification handlers in a microtask but settles a response at once, so
/// the notifications read in the same chunk as the call's response find
/// their handler gone (a tool that reports and returns without waiting
/// sends them all in one chunk). The server's order (every notification,
/// then the response) is held by serve/tests/backchannel.rs and by the
/// Python SDK's test, which sees all four; here the notices that arrive
/// must be the first ones, in order, each with its total.
async function exerciseAnalyst(transport, { progressMayBeLost = false } = {}) {
  const client = askingClient();
  await client.connect(transport);
  try {
    const listed = await client.listTools();
    assert.deepEqual(
      listed.tools.map((tool) => tool.name),
      ANALYST_TOOLS,
    );
    const progress = [];
    const chart = await client.callTool(
      { name: "billing.statement-chart", arguments: { customer: "cust-42" } },
      undefined,
      { onprogress: (notice) => progress.push(notice) },
    );
    assert.ok(!chart.isError, JSON.stringify(chart));
    assert.deepEqual(
      chart.content.map((block) => block.type),
      ["text", "image"],
    );
    assert.equal(chart.content[1].mimeType, "image/png");
    const expected = [0, 1, 2, 3];
    const seen = progress.map((notice) => notice.progress);
    assert.deepEqual(
      seen,
      progressMayBeLost ? expected.slice(0, seen.length) : expected,
    );
    assert.ok(progress.every((notice) => notice.total === 3));
    const closed = await client.callTool({ name: "billing.close-period", arguments: { period: "2026-11" } });
    assert.ok(!closed.isError, JSON.stringify(closed));
    assert.equal(closed.content[0].text, "Period 2026-11 closed.");
    // An embedded icon, and a list result: as it is in 2026-07-28, as
    // {"result": [...]} before; the SDK checks it against the listed schema.
    const tools = Object.fromEntries(listed.tools.map((tool) => [tool.name, tool]));
    assert.match(tools["billing.statement-chart"].icons[0].src, /^data:image\/svg\+xml;base64,/);
    const balances = await client.callTool({ name: "billing.open-balances", arguments: { limit: 1 } });
    assert.ok(!balances.isError, JSON.stringify(balances));
    const output = tools["billing.open-balances"].outputSchema;
    const rows = output.type === "array" ? balances.structuredContent : balances.structuredContent.result;
    assert.equal(rows[0].customer, "cust-42", JSON.stringify(balances));
  } finally {
    await client.close();
  }
}

/// Waits for `notifications/tools/list_changed` after `change()` runs.
function listChanged(client, change) {
  const heard = new Promise((resolveHeard, reject) => {
    const timer = setTimeout(() => reject(new Error("no tools/list_changed within 15 s")), 15_000);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      clearTimeout(timer);
      resolveHeard();
    });
  });
  change();
  return heard;
}

describe("stdio", () => {
  test("a client sees and calls only its own tools", async () => {
    await withClient(stdio("acme-finance"), exerciseFinance);
    await withClient(stdio("globex-support"), exerciseGlobex);
  });

  test("progress, an image, and a question to the user", async () => {
    await exerciseAnalyst(stdio("acme-analyst"), { progressMayBeLost: true });
  });

  test("search mode: found, described and called", async () => {
    const directory = mkdtempSync(join(tmpdir(), "toolschema-ts-"));
    const config = join(directory, "catalog.toml");
    writeFileSync(config, SEARCH_CONFIG);
    try {
      await withClient(stdio("globex-support", "--demo", "--config", config), exerciseSearch);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test("list_changed after the configuration file changes", async () => {
    const directory = mkdtempSync(join(tmpdir(), "toolschema-ts-"));
    const config = join(directory, "catalog.toml");
    writeFileSync(config, DEMO_CONFIG);
    try {
      await withClient(stdio("globex-support", "--demo", "--config", config), async (client) => {
        const before = await client.listTools();
        assert.deepEqual(
          before.tools.map((tool) => tool.name),
          GLOBEX_TOOLS,
        );
        await listChanged(client, () => writeFileSync(config, FLIPPED_CONFIG));
        const after = await client.listTools();
        assert.deepEqual(
          after.tools.map((tool) => tool.name),
          GLOBEX_TOOLS.slice(1),
          "the meta-tool left with the lazy mode",
        );
      });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe("Streamable HTTP", () => {
  const directory = mkdtempSync(join(tmpdir(), "toolschema-ts-"));
  const config = join(directory, "catalog.toml");
  let server;

  before(async () => {
    writeFileSync(config, DEMO_CONFIG);
    server = await serveHttp("--demo", "--config", config);
  });

  after(() => {
    server?.child.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  test("a client sees and calls only its own tools", async () => {
    await withClient(http(server.url, "demo-acme-finance-key"), exerciseFinance);
    await withClient(http(server.url, "demo-globex-support-key"), exerciseGlobex);
  });

  test("progress, an image, and a question to the user", async () => {
    await exerciseAnalyst(http(server.url, "demo-acme-analyst-key"));
  });

  test("a wrong key is refused", async () => {
    await assert.rejects(withClient(http(server.url, "not-a-key"), (client) => client.listTools()));
  });

  test("list_changed over the event stream after the configuration file changes", async () => {
    await withClient(http(server.url, "demo-globex-support-key"), async (client) => {
      // The SDK opens the GET event stream once initialized; give it a moment.
      await new Promise((done) => setTimeout(done, 300));
      await listChanged(client, () => writeFileSync(config, FLIPPED_CONFIG));
      const after = await client.listTools();
      assert.deepEqual(
        after.tools.map((tool) => tool.name),
        GLOBEX_TOOLS.slice(1),
      );
    });
  });
});
