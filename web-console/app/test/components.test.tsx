import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Bar } from "../src/components/Bar";
import { Events } from "../src/pages/Events";
import { JobPage } from "../src/pages/JobPage";
import { initialState, Jobs } from "../src/pages/Jobs";
import { Login } from "../src/pages/Login";
import { isolation, MachineCard } from "../src/pages/Machines";
import { byGpuModel, lastHour, Overview } from "../src/pages/Overview";
import { groupByReason, Pending } from "../src/pages/Pending";
import { Submit, toSpec } from "../src/pages/Submit";
import { Tenants } from "../src/pages/Tenants";
import { loadSession, saveSession } from "../src/session";
import { fakeClient, job, renderWith } from "./support";

afterEach(cleanup);

describe("Login", () => {
  it("tries the key and tells an admin key apart", async () => {
    const onLogin = vi.fn();
    const calls: string[] = [];
    const client = fakeClient({
      "GET /api/v1/jobs?limit=1": { status: 200, body: { items: [job()] } },
      "GET /api/v1/admin/tenants": { status: 403, body: { status: 403, detail: "admin role required" } },
    }, calls);
    render(<Login onLogin={onLogin} makeClient={() => client} />);

    fireEvent.change(screen.getByLabelText("API key"), { target: { value: " key-1 " } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

    await waitFor(() => expect(onLogin).toHaveBeenCalledWith({ key: "key-1", admin: false, tenant: "alice" }));
  });

  it("says a refused key is not valid", async () => {
    const client = fakeClient({ "GET /api/v1/jobs?limit=1": { status: 401, body: { status: 401 } } });
    render(<Login onLogin={vi.fn()} makeClient={() => client} />);

    fireEvent.change(screen.getByLabelText("API key"), { target: { value: "bad" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));

    expect(await screen.findByRole("alert")).toHaveProperty("textContent", "this key is not valid (or was revoked)");
  });
});

describe("session", () => {
  it("keeps the key in the storage it is given, and forgets it", () => {
    const storage = new Map<string, string>();
    const fake = { getItem: (k: string) => storage.get(k) ?? null, setItem: (k: string, v: string) => storage.set(k, v), removeItem: (k: string) => storage.delete(k) } as unknown as Storage;
    saveSession({ key: "k", admin: true }, fake);
    expect(loadSession(fake)).toEqual({ key: "k", admin: true });
    saveSession(null, fake);
    expect(loadSession(fake)).toBeNull();
  });
});

describe("Submit", () => {
  it("shows the API's field errors next to their fields", async () => {
    const client = fakeClient({
      "POST /api/v1/jobs": {
        status: 400,
        body: { type: "about:blank", status: 400, detail: "the request is not valid", errors: [{ field: "resources.cpu", message: "must be greater than 0" }] },
      },
    });
    renderWith(<Submit />, client);

    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "x" } });
    fireEvent.change(screen.getByLabelText("CPU cores"), { target: { value: "0" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));

    const cpu = screen.getByLabelText("CPU cores");
    await waitFor(() => expect(cpu.getAttribute("aria-invalid")).toBe("true"));
    expect(document.getElementById(cpu.getAttribute("aria-describedby")!)?.textContent).toBe("must be greater than 0");
  });

  it("goes to the new job's page", async () => {
    const navigate = vi.fn();
    const client = fakeClient({ "POST /api/v1/jobs": { status: 201, body: job() } });
    renderWith(<Submit />, client, { key: "k", admin: false }, navigate);

    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "hello" } });
    fireEvent.click(screen.getByRole("button", { name: "Submit" }));

    await waitFor(() => expect(navigate).toHaveBeenCalledWith(`#/jobs/${job().id}`));
  });

  it("builds the spec the API takes", () => {
    const spec = toSpec({ name: " a ", queue: "", priority: "7", cpu: "0.5", memoryMb: "128", gpuCount: "", gpuType: "A100|H100",
      command: "echo hi", labels: "team=vision", placementLabels: "", maxAttempts: "", replicas: "1", preemptible: true });
    expect(spec).toMatchObject({ name: "a", queue: undefined, priority: 7, resources: { cpu: 0.5, memoryMb: 128, gpuType: "A100|H100" },
      execution: { command: ["sh", "-c", "echo hi"] }, labels: { team: "vision" }, retry: undefined, placement: undefined,
      replicas: 1, preemptible: undefined });
    // a gang that opts out of preemption
    expect(toSpec({ name: "g", queue: "", priority: "", cpu: "1", memoryMb: "64", gpuCount: "", gpuType: "", command: "x",
      labels: "", placementLabels: "", maxAttempts: "", replicas: "3", preemptible: false }))
      .toMatchObject({ replicas: 3, preemptible: false });
  });
});

describe("Jobs", () => {
  it("asks the server for queue, label and name, from the first page", async () => {
    const calls: string[] = [];
    const client = fakeClient({
      "GET /api/v1/jobs?limit=50": { status: 200, body: { items: [job()] } },
      "GET /api/v1/jobs?limit=50&queue=gpu": { status: 200, body: { items: [] } },
      "GET /api/v1/jobs?limit=50&queue=gpu&label=team%3Dvision": { status: 200, body: { items: [] } },
      "GET /api/v1/jobs?limit=50&queue=gpu&name=resnet&label=team%3Dvision": { status: 200, body: { items: [job({ name: "train-resnet" })] } },
    }, calls);
    renderWith(<Jobs />, client);
    expect(await screen.findByRole("link", { name: "hello" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Queue"), { target: { value: "gpu" } });
    fireEvent.change(screen.getByLabelText("Label"), { target: { value: "team=vision" } });
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "resnet" } });
    expect(await screen.findByRole("link", { name: "train-resnet" })).toBeTruthy();
    expect(calls).toContain("GET /api/v1/jobs?limit=50&queue=gpu&name=resnet&label=team%3Dvision");
  });

  it("asks the server for the chosen state, and takes it from the route", async () => {
    expect(initialState("#/jobs?state=RUNNING")).toBe("RUNNING");
    expect(initialState("#/jobs?state=NOPE")).toBe("");
    const calls: string[] = [];
    const client = fakeClient({
      "GET /api/v1/jobs?limit=50": { status: 200, body: { items: [job()], nextPageToken: "t2" } },
      "GET /api/v1/jobs?state=FAILED&limit=50": { status: 200, body: { items: [] } },
    }, calls);
    renderWith(<Jobs />, client);

    expect(await screen.findByRole("link", { name: "hello" })).toBeTruthy();
    fireEvent.change(screen.getByLabelText("State"), { target: { value: "FAILED" } });
    expect(await screen.findByText("No jobs on this page.")).toBeTruthy();
    expect(calls).toContain("GET /api/v1/jobs?state=FAILED&limit=50");
  });
});

describe("JobPage", () => {
  it("shows the timeline, the attempts with their GPUs, and no output yet as no error", async () => {
    const id = job().id;
    const client = fakeClient({
      [`GET /api/v1/jobs/${id}`]: { status: 200, body: job({ state: "RUNNING", attempt: 1 }) },
      [`GET /api/v1/jobs/${id}/events`]: { status: 200, body: { items: [{ at: "2026-01-01T00:00:00Z", to: "SUBMITTED" }, { at: "2026-01-01T00:00:01Z", from: "SUBMITTED", to: "RUNNING", reason: "placed on m-1" }] } },
      [`GET /api/v1/jobs/${id}/attempts`]: { status: 200, body: { items: [{ attempt: 1, machineId: "m-1", state: "RUNNING", gpus: [0, 3] }] } },
    });
    renderWith(<JobPage id={id} />, client);

    expect(await screen.findByText("placed on m-1")).toBeTruthy();
    expect(screen.getByText("0, 3")).toBeTruthy();
    expect(await screen.findByTestId("no-output")).toBeTruthy();
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("button", { name: "Cancel job" })).toBeTruthy();
  });

  it("shows a running attempt's output as it is printed, each stream followed live, not its stored tails", async () => {
    const id = job().id;
    const logs = `/api/v1/jobs/${id}/attempts/1/logs`;
    const calls: string[] = [];
    const client = fakeClient({
      [`GET /api/v1/jobs/${id}`]: { status: 200, body: job({ state: "RUNNING", attempt: 1 }) },
      [`GET /api/v1/jobs/${id}/events`]: { status: 200, body: { items: [] } },
      [`GET /api/v1/jobs/${id}/attempts`]: { status: 200, body: { items: [{ attempt: 1, machineId: "m-1", state: "RUNNING", gpus: [] }] } },
      [`GET ${logs}?follow=true&stream=stdout`]: { status: 200, events: "data: step 1\ndata: \nid: 7\n\ndata: step 2\nid: 13\n\nevent: end\ndata: \n\n" },
      [`GET ${logs}?follow=true&stream=stderr`]: { status: 200, events: "data: warning\ndata: \nid: 8\n\nevent: end\ndata: \n\n" },
    }, calls);
    renderWith(<JobPage id={id} />, client);

    await waitFor(() => expect(screen.getByTestId("stdout").textContent).toBe("step 1\nstep 2"));
    await waitFor(() => expect(screen.getByTestId("stderr").textContent).toBe("warning\n"));
    expect(screen.getByRole("heading", { name: "Logs of attempt 1 (following)" })).toBeTruthy();
    expect(calls).not.toContain(`GET ${logs}`);
  });

  it("lists a gang's replicas each with its rank, and shows the output of the replica asked", async () => {
    const id = job().id;
    const replica = (r: number) => ({ attempt: 1, machineId: `m-${r}`, state: "SUCCEEDED", replica: r, worldSize: 3, gpus: [] });
    const client = fakeClient({
      [`GET /api/v1/jobs/${id}`]: { status: 200, body: job({ state: "SUCCEEDED", attempt: 1, replicas: 3 }) },
      [`GET /api/v1/jobs/${id}/events`]: { status: 200, body: { items: [] } },
      [`GET /api/v1/jobs/${id}/attempts`]: { status: 200, body: { items: [replica(0), replica(1), replica(2)] } },
      [`GET /api/v1/jobs/${id}/attempts/1/logs`]: { status: 200, body: { stdout: "I am rank 0\n", stderr: "" } },
      [`GET /api/v1/jobs/${id}/attempts/1/logs?replica=2`]: { status: 200, body: { stdout: "I am rank 2\n", stderr: "" } },
    });
    renderWith(<JobPage id={id} />, client);

    expect((await screen.findByTestId("stdout")).textContent).toBe("I am rank 0\n");
    expect(screen.getByText("2 of 3")).toBeTruthy();
    expect(document.querySelector("pre.spec")?.textContent).toContain('"replicas": 3');
    fireEvent.click(screen.getByRole("button", { name: "Show logs of 1, replica 2" }));
    await waitFor(() => expect(screen.getByTestId("stdout").textContent).toBe("I am rank 2\n"));
    expect(screen.getByRole("heading", { name: "Logs of attempt 1, replica 2" })).toBeTruthy();
  });
});

describe("Pending", () => {
  it("groups waiting jobs by their reason, the largest group first", async () => {
    const a = job({ id: "a", stateReason: "no machine has 64 GPUs" });
    const b = job({ id: "b", stateReason: "no machine has 64 GPUs" });
    const c = job({ id: "c", state: "SUBMITTED", stateReason: undefined });
    expect(groupByReason([c, a, b] as never).map((g) => [g.reason, g.jobs.length]))
      .toEqual([["no machine has 64 GPUs", 2], ["waiting for the scheduler's next pass", 1]]);

    const client = fakeClient({
      "GET /api/v1/jobs?state=QUEUED&limit=500": { status: 200, body: { items: [a, b] } },
      "GET /api/v1/jobs?state=SUBMITTED&limit=500": { status: 200, body: { items: [c] } },
    });
    renderWith(<Pending />, client);
    expect(await screen.findByText("no machine has 64 GPUs")).toBeTruthy();
  });
});

describe("machines", () => {
  const machine = {
    id: "m-1", region: "eu", status: "DRAINING" as const, statusReason: "drained by ops: disk", gpuType: "H100",
    capacity: { cpu: 8, memoryMb: 1000, gpuCount: 2 }, allocated: { cpu: 2, memoryMb: 900, gpuCount: 2 },
    gpus: [{ index: 0, model: "NVIDIA H100" }, { index: 1, model: "NVIDIA H100" }], lastHeartbeatAt: new Date().toISOString(),
    liveAttempts: 3, maxLiveAttempts: 4,
  };

  it("draws each dimension as a bar of allocated over capacity", () => {
    render(<Bar label="CPU" used={2} total={8} />);
    const meter = screen.getByRole("meter", { name: "CPU" });
    expect(meter.getAttribute("aria-valuetext")).toBe("CPU: 2 of 8 (25%)");
    expect((meter.firstChild as HTMLElement).style.width).toBe("25%");
  });

  it("shows status, reason and GPUs, and operates it", () => {
    const onOperate = vi.fn();
    render(<MachineCard machine={machine} onOperate={onOperate} />);
    expect(screen.getByText("drained by ops: disk")).toBeTruthy();
    expect(screen.getByText("GPU 1: NVIDIA H100")).toBeTruthy();
    expect(screen.getByRole("meter", { name: "Attempts" }).getAttribute("aria-valuetext")).toBe("Attempts: 3 of 4 (75%)");
    expect((screen.getByRole("button", { name: "Drain" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Uncordon" }));
    expect(onOperate).toHaveBeenCalledWith("uncordon");
  });

  it("says how each machine holds its jobs apart and what its sandbox does not hold", () => {
    render(<MachineCard machine={{ ...machine, isolation: "sandbox", isolationGaps: ["egress", "cgroups"] }} />);
    expect(screen.getByText("sandboxed, not held here: egress, cgroups").className).toBe("reason");
    expect(isolation({ ...machine, isolation: "sandbox", isolationGaps: [] })).toBe("sandboxed, all of it held");
    expect(isolation({ ...machine, isolation: "sandbox" })).toBe("sandboxed");
    expect(isolation({ ...machine, isolation: "none" })).toBe("no sandbox: jobs run as the agent's user and see the machine");
  });

  it("sums the fleet by GPU model, lost machines left out", () => {
    const cpu = { ...machine, id: "c", status: "READY" as const, gpus: [], gpuType: undefined, capacity: { cpu: 4, memoryMb: 100, gpuCount: 0 }, allocated: { cpu: 1, memoryMb: 0, gpuCount: 0 } };
    const lost = { ...machine, id: "l", status: "LOST" as const };
    expect(byGpuModel([machine, cpu, lost])).toEqual([
      { model: "CPU only", machines: 1, cpu: [1, 4], memoryMb: [0, 100], gpuCount: [0, 0] },
      { model: "NVIDIA H100", machines: 1, cpu: [2, 8], memoryMb: [900, 1000], gpuCount: [2, 2] },
    ]);
  });
});

describe("Overview", () => {
  it("shows the last hour's changes by state and the placements a second", async () => {
    const activity = { windowSeconds: 3600, bucketSeconds: 300, placementsPerSecond: 0.25,
      buckets: [{ start: "2026-01-01T10:00:00Z", entered: { QUEUED: 4, SCHEDULED: 3 } }] };
    expect(lastHour(activity as never)[0].entered).toMatchObject({ QUEUED: 4, SCHEDULED: 3, FAILED: 0 });
    const client = fakeClient({ "GET /api/v1/activity": { status: 200, body: activity } });
    renderWith(<Overview />, client);
    expect((await screen.findByTestId("placements")).textContent).toBe("0.25");
    expect(screen.getByRole("table", { name: "changes by state, five minutes a row" }).textContent).toContain("4");
  });

  it("shows a tenant what its jobs hold against its quota", async () => {
    const client = fakeClient({
      "GET /api/v1/activity": { status: 200, body: { windowSeconds: 3600, bucketSeconds: 300, placementsPerSecond: 0, buckets: [] } },
      "GET /api/v1/tenant": { status: 200, body: { id: "t1", name: "alice", weight: 2, quota: { gpuCount: 8 },
        usage: { cpu: 1.5, memoryMb: 512, gpuCount: 6, jobs: 3 } } },
    });
    renderWith(<Overview />, client);

    expect((await screen.findByTestId("held-jobs")).textContent).toBe("3 jobs placed or running, weight 2");
    expect(screen.getByRole("meter", { name: "GPUs of the quota" }).getAttribute("aria-valuetext")).toBe("GPUs of the quota: 6 of 8 (75%)");
    expect(screen.getByText("CPU: 1.5 cores (no quota)")).toBeTruthy();
  });
});

describe("Tenants", () => {
  it("saves the whole quota: a change of weight keeps the live jobs and the highest priority", async () => {
    const calls: string[] = [];
    const quota = { gpuCount: 2, maxLiveJobs: 5, maxPriority: 600 };
    const client = fakeClient({
      "GET /api/v1/admin/tenants": { status: 200, body: { items: [{ id: "t1", name: "alice", weight: 1, quota }] } },
      "PATCH /api/v1/admin/tenants/alice": { status: 200, body: { id: "t1", name: "alice", weight: 3, quota } },
    }, calls);
    renderWith(<Tenants />, client, { key: "k", admin: true });

    const weight = await screen.findByLabelText("Weight", { selector: "[data-tenant=alice] input" });
    fireEvent.change(weight, { target: { value: "3" } });
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Save" })));
    const patch = calls.find((c) => c.startsWith("PATCH /api/v1/admin/tenants/alice "));
    expect(patch).toBeDefined();
    expect(JSON.parse(patch!.slice("PATCH /api/v1/admin/tenants/alice ".length))).toEqual({ weight: 3, quota });
  });

  it("issues a key, shows it once, and revokes it; the list of keys is hidden where the API has none", async () => {
    const calls: string[] = [];
    const client = fakeClient({
      "GET /api/v1/admin/tenants": { status: 200, body: { items: [{ id: "t1", name: "alice", weight: 1 }] } },
      "POST /api/v1/admin/tenants/alice/api-keys": { status: 201, body: { id: "k1", key: "secret-1" } },
      "DELETE /api/v1/admin/tenants/alice/api-keys/k1": { status: 204 },
    }, calls);
    renderWith(<Tenants />, client, { key: "k", admin: true });

    fireEvent.click(await screen.findByRole("button", { name: "Issue API key" }));
    expect((await screen.findByTestId("issued-key")).textContent).toBe("secret-1");
    expect(screen.queryByRole("list", { name: "API keys of alice" })).toBeNull();
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Revoke k1" })));
    await waitFor(() => expect(screen.queryByTestId("issued-key")).toBeNull());
    expect(calls).toContain("DELETE /api/v1/admin/tenants/alice/api-keys/k1");
  });
});

describe("Events", () => {
  const frame = (position: number, jobId: string, version: number, from: string | null, to: string, reason: string) =>
    `id: ${position}\ndata: ${JSON.stringify({ jobId, version, at: "2026-01-01T00:00:00Z", from, to, reason })}\n\n`;

  it("shows the tenant's changes as they come, newest first, each once, with the job's name", async () => {
    const id = job().id;
    const calls: string[] = [];
    const client = fakeClient({
      // the stream ends and is reconnected: the same changes again are shown once
      "GET /api/v1/events?follow=true": { status: 200, events: frame(7, id, 3, "QUEUED", "SCHEDULED", "placed on m-1") + frame(8, id, 4, "SCHEDULED", "RUNNING", "running on m-1") },
      "GET /api/v1/jobs?limit=200": { status: 200, body: { items: [job({ name: "trainer" })] } },
    }, calls);
    renderWith(<Events />, client);

    await waitFor(() => expect(screen.getAllByRole("row")).toHaveLength(3));
    const rows = screen.getAllByRole("row").slice(1).map((r) => r.textContent);
    expect(rows[0]).toContain("running on m-1");
    expect(rows[1]).toContain("placed on m-1");
    await waitFor(() => expect(screen.getAllByRole("link", { name: "trainer" })).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 700)); // past a reconnect
    expect(screen.getAllByRole("row")).toHaveLength(3);
    expect(calls).not.toContain(`GET /api/v1/jobs/${id}`); // named from the newest jobs' page
  });

  it("looks up a few names at a time however many jobs change", async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`);
    const calls: string[] = [];
    const answers: Record<string, { status: number; body?: unknown; events?: string }> = {
      "GET /api/v1/events?follow=true": { status: 200, events: ids.map((id, i) => frame(i + 1, id, 2, "SUBMITTED", "QUEUED", "admitted")).join("") },
      "GET /api/v1/jobs?limit=200": { status: 200, body: { items: [] } }, // older jobs, past the newest page
    };
    for (const id of ids) answers[`GET /api/v1/jobs/${id}`] = { status: 200, body: job({ id, name: `job-${id.slice(-2)}` }) };
    renderWith(<Events />, fakeClient(answers, calls));

    await waitFor(() => expect(screen.getAllByRole("row")).toHaveLength(31));
    await waitFor(() => expect(screen.getAllByRole("link", { name: /^job-/ })).toHaveLength(5));
    expect(calls.filter((c) => /^GET \/api\/v1\/jobs\/0/.test(c))).toHaveLength(5);
  });
});
