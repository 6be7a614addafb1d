// The operator console in a real browser: Debian's Chromium driven by
// playwright-core, against the binary serving a catalog store (the
// console_fixture example starts PostgreSQL, loads the demo catalog, adds an
// operator and runs `toolschema serve --database-url … --admin-bind …`).
//
// An operator logs in, reads what a client sees and what a new version of a
// tool would break, publishes it (refused without the explicit acceptance,
// then accepted), sees the client's list change over MCP, and reads the
// audit trail; every page is checked by axe-core (no serious or critical
// violation); the same flows work with JavaScript disabled. Screenshots of
// the main pages are written to docs/console/ when TOOLSCHEMA_SCREENSHOTS
// is set.
//
// Run by .ci/run: TOOLSCHEMA_FIXTURE names the fixture's binary,
// TOOLSCHEMA_BIN the toolschema binary, CHROMIUM the browser.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURE = process.env.TOOLSCHEMA_FIXTURE ?? join(ROOT, "target", "debug", "examples", "console_fixture");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const SCREENSHOTS = process.env.TOOLSCHEMA_SCREENSHOTS ? join(ROOT, "docs", "console") : null;
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let fixture;
let served;
let browser;
let profile;

before(async () => {
  fixture = spawn(FIXTURE, [], { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] });
  served = await new Promise((done, fail) => {
    let seen = "";
    fixture.stdout.on("data", (chunk) => {
      seen += chunk;
      const line = seen.split("\n").find((l) => l.startsWith("{"));
      if (line) done(JSON.parse(line));
    });
    fixture.on("error", fail);
    fixture.on("exit", (code) => fail(new Error(`the fixture exited (${code}): ${seen}`)));
  });
  profile = mkdtempSync(join(tmpdir(), "toolschema-console-"));
  // As root, without a sandbox; no background networking (this machine's
  // network is closed).
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  fixture?.stdin.end();
  await new Promise((done) => fixture?.on("exit", done) ?? done());
  rmSync(profile, { recursive: true, force: true });
});

/// No serious or critical accessibility violation on the page. (axe is
/// injected as a script: the context bypasses the console's CSP, which
/// allows none.)
async function accessible(page, what) {
  await page.addScriptTag({ content: AXE });
  const results = await page.evaluate(async () => await window.axe.run(document));
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    [],
    `${what}: accessibility`,
  );
  return results.passes.length > 0;
}

async function shoot(page, name) {
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function logIn(page) {
  await page.goto(`${served.admin}/console`);
  assert.match(page.url(), /\/console\/login$/);
  await page.getByLabel("Operator key").fill(served.key);
  await page.getByRole("button", { name: "Log in" }).click();
  assert.equal(new URL(page.url()).pathname, "/console");
}

/// acme-finance's tools, by name: its `tools/list` over MCP (Streamable
/// HTTP, one JSON-RPC request).
async function financeTools() {
  const answer = await fetch(`${served.mcp}/mcp`, {
    method: "POST",
    headers: {
      "X-API-Key": "demo-acme-finance-key",
      "MCP-Protocol-Version": "2025-11-25",
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  assert.equal(answer.status, 200);
  const { result } = await answer.json();
  return Object.fromEntries(result.tools.map((tool) => [tool.name, tool]));
}

test("an operator logs in, reads, publishes a breaking version only when accepted, and the client's list changes", async () => {
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  // A wrong key: told, still on the login page.
  await page.goto(`${served.admin}/console/login`);
  assert.ok(await accessible(page, "login"));
  await shoot(page, "login");
  await page.getByLabel("Operator key").fill(`tso_${"0".repeat(64)}`);
  await page.getByRole("button", { name: "Log in" }).click();
  assert.match(await page.getByRole("alert").innerText(), /not an operator key/);

  await logIn(page);
  assert.ok(await accessible(page, "overview"));
  await shoot(page, "overview");
  await page.getByRole("link", { name: "acme-assistant" }).click();
  assert.match(await page.locator("h1").innerText(), /acme-assistant/);
  assert.match(await page.content(), /Saving against Full mode/);
  assert.ok(await accessible(page, "client"));
  await shoot(page, "client");
  await page.getByRole("link", { name: "billing.list-invoices" }).click();
  assert.match(await page.locator("h1").innerText(), /billing\.list-invoices, as acme-assistant sees it/);
  assert.ok(await accessible(page, "a client's tool"));

  // The replica serving MCP follows the store: its connection is listed.
  await page.getByRole("link", { name: "Replicas" }).click();
  assert.equal(await page.locator("tbody tr").count(), 1);
  assert.ok(await accessible(page, "replicas"));

  await page.getByRole("link", { name: "Tools", exact: true }).click();
  assert.ok(await accessible(page, "tools"));
  await shoot(page, "tools");
  await page.getByRole("link", { name: "billing.refund" }).click();
  assert.match(await page.content(), /may break its clients/);
  assert.ok(await accessible(page, "tool"));
  await shoot(page, "tool");

  const before = await financeTools();
  const version2 = page.locator("section", { has: page.getByRole("heading", { name: "Version 2: draft" }) });
  // Without the acceptance: refused, and told why.
  await version2.getByRole("button", { name: "Publish" }).click();
  assert.match(await page.getByRole("alert").innerText(), /Nothing changed: serving `billing\.refund` version 2 instead of version 1 may break/);
  // Accepted.
  const draft = page.locator("section", { has: page.getByRole("heading", { name: "Version 2: draft" }) });
  await draft.getByLabel("I accept the breaking changes").check();
  await draft.getByRole("button", { name: "Publish" }).click();
  assert.match(await page.getByRole("status").innerText(), /published/);
  assert.match(await page.content(), /Version 2 is served\./);

  // The replica follows the store: acme-finance's list changes over MCP.
  let now = before;
  for (let tries = 0; tries < 100; tries += 1) {
    now = await financeTools();
    if (JSON.stringify(now["billing.refund"]) !== JSON.stringify(before["billing.refund"])) break;
    await new Promise((done) => setTimeout(done, 100));
  }
  assert.notDeepEqual(now["billing.refund"], before["billing.refund"], "version 2 is served over MCP");

  await page.getByRole("link", { name: "Audit trail" }).click();
  await page.getByLabel("Who").fill("alice");
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = await page.locator("tbody tr").allInnerTexts();
  assert.ok(rows.some((row) => row.includes("publish") && row.includes("billing.refund")), rows.join("\n"));
  assert.ok(await accessible(page, "audit"));
  await shoot(page, "audit");

  // An API description imported into drafts, from a pasted document.
  await page.getByRole("link", { name: "Import" }).click();
  assert.ok(await accessible(page, "import"));
  await page.getByLabel("Downstream id").fill("pets");
  await page.getByLabel("Prefix of every tool name").fill("pets.");
  await page.getByLabel("The document", { exact: true }).fill(JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Pets", version: "1" },
    servers: [{ url: "https://pets.example.com/v1" }],
    paths: { "/pets": { get: { operationId: "listPets", responses: { 200: { description: "the pets" } } } } },
  }));
  await page.getByRole("button", { name: "Import as drafts" }).click();
  assert.match(await page.getByRole("status").innerText(), /import/i);
  assert.ok(await accessible(page, "imported"));
  await shoot(page, "import");

  // A client's key, rotated: shown once.
  await page.goto(`${served.admin}/console/clients/acme-analyst`);
  await page.getByRole("button", { name: "Rotate the key" }).click();
  assert.match(await page.getByLabel("The new key").innerText(), /^tsk_[0-9a-f]{64}$/);
  assert.ok(await accessible(page, "new key"));
  await context.close();
});

test("the same flows without JavaScript", async () => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await logIn(page);
  const row = page.locator("tr", { has: page.getByRole("cell", { name: "acme-reports", exact: true }) });
  await row.getByRole("button", { name: "Deactivate" }).click();
  assert.match(await page.getByRole("status").innerText(), /deactivated|inactive|acme-reports/);
  const again = page.locator("tr", { has: page.getByRole("cell", { name: "acme-reports", exact: true }) });
  await again.getByRole("button", { name: "Activate" }).click();
  await page.getByRole("link", { name: "Audit trail" }).click();
  await page.getByLabel("What").fill("deactivate");
  await page.getByRole("button", { name: "Filter" }).click();
  const rows = await page.locator("tbody tr").allInnerTexts();
  assert.ok(rows.some((row) => row.includes("acme-reports")), rows.join("\n"));
  // Import a document into a draft, and publish it, by forms alone.
  await page.getByRole("link", { name: "Import" }).click();
  await page.getByLabel("Downstream id").fill("shop");
  await page.getByLabel("Prefix of every tool name").fill("shop.");
  await page.getByLabel("The document", { exact: true }).fill(JSON.stringify({
    openapi: "3.0.3",
    info: { title: "Shop", version: "1" },
    servers: [{ url: "https://shop.example.com" }],
    paths: { "/orders": { get: { operationId: "listOrders", responses: { 200: { description: "orders" } } } } },
  }));
  await page.getByRole("button", { name: "Import as drafts" }).click();
  await page.locator("main ul a").first().click();
  assert.match(await page.content(), /Version 1: draft/);
  await page.getByRole("button", { name: "Publish" }).click();
  assert.match(await page.content(), /Version 1 is served\./);
  await page.getByRole("button", { name: "Log out" }).click();
  assert.match(page.url(), /\/console\/login$/);
  await context.close();
});
