// The web console in headless Chromium against a running platform (ConsoleBrowserTest starts it and says where,
// in the environment). Each scenario prints "ok <name>"; the first that fails ends the run with its reason.
// A screenshot of every page it visits lands in SCREENSHOTS.
import { mkdirSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const BASE = env("CONSOLE_BASE_URL");
const USER_KEY = env("CONSOLE_USER_KEY");
const OTHER_KEY = env("CONSOLE_OTHER_KEY");
const ADMIN_KEY = env("CONSOLE_ADMIN_KEY");
const USER_TENANT = env("CONSOLE_USER_TENANT");
const DRAIN_MACHINE = env("CONSOLE_DRAIN_MACHINE");
const SCREENSHOTS = env("CONSOLE_SCREENSHOTS");
const MACHINE_PREFIX = process.env.CONSOLE_MACHINE_PREFIX ?? "console-machine-";
const { chromium } = createRequire(join(env("CONSOLE_NODE_MODULES_OF"), "package.json"))("playwright-core");

mkdirSync(SCREENSHOTS, { recursive: true });
const userDataDir = mkdtempSync(join(env("CONSOLE_WORK_DIR"), "chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: process.env.CONSOLE_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 800 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
context.setDefaultTimeout(30_000);
const page = context.pages()[0] ?? (await context.newPage());
const consoleErrors = [];
page.on("pageerror", (e) => consoleErrors.push(String(e)));
// what the page's Content-Security-Policy refused (Chromium says so on the console): the console must need nothing of it
page.on("console", (m) => {
  if (m.type() === "error" && m.text().includes("Content Security Policy")) consoleErrors.push(m.text());
});
const results = {};

async function shot(name) {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

async function step(name, body) {
  const started = Date.now();
  await body();
  console.log(`ok ${name} (${Date.now() - started} ms)`);
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

async function signIn(key, expectAdmin) {
  await page.goto(BASE + "/");
  expect(new URL(page.url()).pathname === "/console/", `/ led to ${page.url()}`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  const admin = await page.getByRole("link", { name: "Machines" }).count();
  expect(admin === (expectAdmin ? 1 : 0), `admin pages shown: ${admin}`);
}

async function signOut() {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API key").waitFor();
}

async function submitForm(fields) {
  await page.goto(BASE + "/console/#/submit");
  await page.getByRole("heading", { name: "Submit a job" }).waitFor();
  const defaults = { "CPU cores": "0.5", "Memory (MB)": "64", "Command (run with sh -c)": "true", "Labels (k=v, k=v)": "" };
  for (const [label, value] of Object.entries({ ...defaults, ...fields })) {
    await page.getByLabel(label, { exact: true }).fill(value);
  }
  await page.getByRole("button", { name: "Submit" }).click();
}

async function awaitJobPage() {
  await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/);
  return decodeURIComponent(page.url().split("#/jobs/")[1]);
}

async function awaitState(state, timeout = 60_000) {
  await page.locator("#job-title .badge", { hasText: new RegExp(`^${state}$`) }).waitFor({ timeout });
}

async function status(key, path) {
  const response = await fetch(BASE + path, { headers: { Authorization: `Bearer ${key}` } });
  return response.status;
}

try {
  await step("sign in with a key", async () => {
    await page.goto(BASE + "/");
    await page.getByLabel("API key").waitFor();
    await shot("01-login");
    await page.getByLabel("API key").fill("not-a-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("this key is not valid").waitFor();
    await signIn(USER_KEY, false);
    await page.getByRole("heading", { name: "Jobs", exact: true }).waitFor();
  });

  await step("the form shows the API's field errors", async () => {
    await submitForm({ Name: "bad name with spaces", "CPU cores": "0" });
    await page.locator(".field-error[data-field=cpu]").waitFor();
    await page.locator(".field-error[data-field=name]").waitFor();
    await shot("02-submit-errors");
  });

  await step("submit a job in the form and see it SUCCEEDED, with its logs", async () => {
    await submitForm({ Name: "console-hello", "Command (run with sh -c)": "echo hello from the console", "Labels (k=v, k=v)": "team=console" });
    results.succeeded = await awaitJobPage();
    await awaitState("SUCCEEDED");
    await page.getByTestId("stdout").filter({ hasText: "hello from the console" }).waitFor();
    await page.locator(".timeline li", { hasText: "RUNNING" }).waitFor();
    await page.locator("tbody tr td:nth-child(2)", { hasText: MACHINE_PREFIX }).first().waitFor();
    await shot("03-job-succeeded");
  });

  await step("the jobs list, filtered by label", async () => {
    await page.goto(BASE + "/console/#/jobs");
    await page.getByRole("link", { name: "console-hello" }).waitFor();
    await page.getByLabel("Label").fill("team=nobody");
    await page.getByText("No jobs on this page.").waitFor();
    await page.getByLabel("Label").fill("team=console");
    await page.getByRole("link", { name: "console-hello" }).waitFor();
    await shot("04-jobs");
  });

  await step("a job that fits nowhere is under why pending, with its reason", async () => {
    await submitForm({ Name: "console-too-big", "CPU cores": "64" });
    results.pending = await awaitJobPage();
    await page.goto(BASE + "/console/#/pending");
    const group = page.locator("article.group", { has: page.getByRole("link", { name: "console-too-big" }) });
    await group.waitFor();
    // the scheduler's reason, not admission's ("admitted; waiting for placement") nor the page's own placeholder
    await group.locator(".reason").filter({ hasNotText: "waiting for the scheduler's next pass" })
      .filter({ hasNotText: "waiting for placement" }).waitFor();
    results.pendingReason = await group.locator("h3 .reason").textContent();
    await shot("05-why-pending");
  });

  await step("follow a running job's output live, then cancel it", async () => {
    await submitForm({ Name: "console-sleeper", "Command (run with sh -c)": "echo started; sleep 300" });
    results.canceled = await awaitJobPage();
    await awaitState("RUNNING");
    // printed while it runs: only a live follow shows it (the stored tails come when the attempt ends)
    await page.getByRole("heading", { name: "Logs of attempt 1 (following)" }).waitFor();
    await page.getByTestId("stdout").filter({ hasText: "started" }).waitFor({ timeout: 30_000 });
    await shot("06-job-followed");
    await page.getByRole("button", { name: "Cancel job" }).click();
    await awaitState("CANCELED", 30_000);
    await shot("06-job-canceled");
  });

  await step("the overview", async () => {
    await page.goto(BASE + "/console/#/overview");
    await page.locator("strong[data-state=SUCCEEDED]", { hasText: /^[1-9]/ }).waitFor();
    // the last hour, through the gateway: the jobs this run submitted entered SUBMITTED in it
    await page.locator("table[aria-label='changes by state, five minutes a row'] tbody td:not(:first-child)",
      { hasText: /^[1-9]/ }).first().waitFor();
    await page.getByTestId("placements").waitFor();
    // what the tenant's jobs hold, through the gateway (GET /api/v1/tenant): the sleeper was canceled, nothing runs
    await page.getByTestId("held-jobs").filter({ hasText: /^0 jobs placed or running, weight 1$/ }).waitFor();
    await shot("07-overview-user");
  });

  await step("the tenant's changes live on the events page", async () => {
    const streaming = page.waitForResponse((r) => r.url().includes("/api/v1/events?follow=true"));
    await page.goto(BASE + "/console/#/events");
    await page.getByRole("heading", { name: "Live events" }).waitFor();
    expect((await streaming).status() === 200, "the event stream did not open");
    // submitted after the page opened its stream: every change of it comes live, none from a reload
    const response = await fetch(BASE + "/api/v1/jobs", {
      method: "POST", headers: { Authorization: `Bearer ${USER_KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "console-live", resources: { cpu: 0.5, memoryMb: 64 }, execution: { command: ["true"] } }),
    });
    expect(response.status === 201, `submit: ${response.status}`);
    const id = (await response.json()).id;
    const rows = page.locator(`tr[data-job="${id}"]`);
    for (const state of ["SUBMITTED", "RUNNING", "SUCCEEDED"]) {
      await rows.filter({ has: page.locator("td:nth-child(4) .badge", { hasText: new RegExp(`^${state}$`) }) })
        .waitFor({ timeout: 60_000 });
    }
    await rows.first().getByRole("link", { name: "console-live" }).waitFor();
    await shot("07-events");
  });

  await step("readable on a phone's width", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const route of ["jobs", `jobs/${results.succeeded}`, "submit", "pending", "events"]) {
      await page.goto(BASE + `/console/#/${route}`);
      await page.locator("main h2").first().waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width <= 392, `#/${route} is ${width} px wide at 390`);
    }
    await page.goto(BASE + "/console/#/jobs");
    await page.getByRole("link", { name: "console-hello" }).waitFor();
    await shot("08-jobs-phone");
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await step("another tenant sees none of the first tenant's jobs", async () => {
    await signOut();
    await signIn(OTHER_KEY, false);
    await page.getByText("No jobs on this page.").waitFor();
    await page.goto(BASE + "/console/#/pending");
    await page.getByText("Nothing is waiting.").waitFor();
    await page.goto(BASE + `/console/#/jobs/${results.succeeded}`);
    await page.getByRole("alert").filter({ hasText: "404" }).waitFor();
    await shot("09-other-tenant");
    for (const name of ["console-hello", "console-too-big", "console-sleeper"]) {
      await page.goto(BASE + "/console/#/jobs");
      await page.getByText("No jobs on this page.").waitFor();
      expect(await page.getByText(name).count() === 0, `${name} shown to another tenant`);
    }
  });

  await step("as an admin, drain a machine", async () => {
    await signOut();
    await signIn(ADMIN_KEY, true);
    await page.goto(BASE + "/console/#/machines");
    const card = page.locator(`article[data-machine="${DRAIN_MACHINE}"]`);
    await card.waitFor();
    await page.getByLabel("Reason for drain, cordon, uncordon").fill("console browser test");
    await card.getByRole("button", { name: "Drain" }).click();
    await card.locator(".badge", { hasText: "DRAINING" }).waitFor();
    await card.getByText("console browser test").waitFor();
    await shot("10-machines");
  });

  await step("as an admin, issue and revoke a key", async () => {
    await page.goto(BASE + "/console/#/tenants");
    const card = page.locator(`article[data-tenant="${USER_TENANT}"]`);
    await card.getByRole("list", { name: `API keys of ${USER_TENANT}` }).waitFor(); // the card has loaded its keys
    await card.getByTestId("held-jobs").waitFor();
    await card.getByRole("button", { name: "Issue API key" }).click();
    // a clean-clone run once waited 30 s here with nothing shown (neither the key nor an error): allow a loaded machine
    const key = (await card.getByTestId("issued-key").textContent({ timeout: 60_000 })).trim();
    expect(await status(key, "/api/v1/jobs?limit=1") === 200, "the issued key does not work");
    await shot("11-tenants");
    await card.getByRole("button", { name: /^Revoke / }).first().click();
    await card.getByTestId("issued-key").waitFor({ state: "detached" });
    const deadline = Date.now() + 20_000; // the gateway caches a key for a few seconds
    while ((await status(key, "/api/v1/jobs?limit=1")) !== 401) {
      expect(Date.now() < deadline, "the revoked key still works");
      await new Promise((r) => setTimeout(r, 250));
    }
    results.revokedKey = true;
  });

  await step("as an admin, the overview with the fleet", async () => {
    await page.goto(BASE + "/console/#/overview");
    await page.getByRole("heading", { name: "Fleet utilisation by GPU model" }).waitFor();
    await page.locator("article[aria-label^='utilisation of']").first().waitFor();
    await shot("12-overview-admin");
  });

  expect(consoleErrors.length === 0, `errors in the page: ${consoleErrors.join("; ")}`);
  console.log("RESULT " + JSON.stringify(results));
} catch (e) {
  await shot("failure").catch(() => {});
  console.error(`FAILED: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await context.close();
}
