import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ApiError, FleetJobsClient, type JobEvent } from "../src/index.js";

/** A stub of the API: each test says what a path answers; the server records what it was asked. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}
type Handler = (req: Seen, res: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let routes: Map<string, Handler>;
let seen: Seen[];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const entry: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(entry);
      const handler = routes.get(`${entry.method} ${entry.url}`);
      if (handler) {
        handler(entry, res);
      } else {
        json(res, 404, { type: "about:blank", title: "Not Found", status: 404, detail: `no ${entry.url}` }, "application/problem+json");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  routes = new Map();
  seen = [];
});

function json(res: ServerResponse, status: number, body: unknown, type = "application/json") {
  res.writeHead(status, { "Content-Type": type });
  res.end(JSON.stringify(body));
}

const job = { id: "0b0c6a1e-0000-4000-8000-000000000001", name: "hello", state: "QUEUED" };

describe("FleetJobsClient", () => {
  it("submits a spec with the key and the idempotency key, and returns the job", async () => {
    routes.set("POST /api/v1/jobs", (req, res) => json(res, 201, { ...job, echoed: JSON.parse(req.body) }));
    const client = new FleetJobsClient({ baseUrl, token: "k-123" });

    const created = await client.submit({ name: "hello", resources: { cpu: 1, memoryMb: 64 }, execution: { command: ["true"] } }, "idem-1");

    expect(created.id).toBe(job.id);
    expect(seen[0].headers.authorization).toBe("Bearer k-123");
    expect(seen[0].headers["idempotency-key"]).toBe("idem-1");
    expect(seen[0].headers["content-type"]).toBe("application/json");
    expect(JSON.parse(seen[0].body).execution.command).toEqual(["true"]);
  });

  it("turns a problem+json answer into an ApiError naming the field", async () => {
    routes.set("POST /api/v1/jobs", (_req, res) => json(res, 400, {
      type: "about:blank", title: "Bad Request", status: 400, detail: "invalid job spec",
      errors: [{ field: "resources.cpu", message: "must be > 0" }],
    }, "application/problem+json"));
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const error = await client.submit({ name: "x", resources: { cpu: 0, memoryMb: 1 }, execution: { command: ["x"] } })
      .catch((e) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("invalid job spec");
    expect(error.fieldMessage("resources.cpu")).toBe("must be > 0");
  });

  it("lists with the state, limit and page token in the query, and reads the token at each call", async () => {
    routes.set("GET /api/v1/jobs?state=RUNNING&limit=2&pageToken=abc", (_req, res) => json(res, 200, { items: [job], nextPageToken: "def" }));
    let token = "first";
    const client = new FleetJobsClient({ baseUrl, token: () => token });
    token = "second";

    const page = await client.list({ state: "RUNNING", limit: 2, pageToken: "abc" });

    expect(page.items).toHaveLength(1);
    expect(page.nextPageToken).toBe("def");
    expect(seen[0].headers.authorization).toBe("Bearer second");
  });

  it("cancels, and gets a job", async () => {
    routes.set(`POST /api/v1/jobs/${job.id}/cancel`, (_req, res) => json(res, 202, { ...job, cancelRequested: true }));
    routes.set(`GET /api/v1/jobs/${job.id}`, (_req, res) => json(res, 200, job));
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    expect((await client.cancel(job.id)).cancelRequested).toBe(true);
    expect((await client.get(job.id)).name).toBe("hello");
  });

  it("reads no logs yet as null, not as an error", async () => {
    const client = new FleetJobsClient({ baseUrl, token: "k" });
    expect(await client.logs(job.id, 1)).toBeNull();

    routes.set(`GET /api/v1/jobs/${job.id}/attempts/1/logs`, (_req, res) => json(res, 200, { stdout: "hi\n", stderr: "" }));
    expect((await client.logs(job.id, 1))?.stdout).toBe("hi\n");
  });

  it("still throws other errors of the logs, with Retry-After", async () => {
    routes.set(`GET /api/v1/jobs/${job.id}/attempts/1/logs`, (_req, res) => {
      res.writeHead(503, { "Content-Type": "application/problem+json", "Retry-After": "2" });
      res.end(JSON.stringify({ type: "about:blank", status: 503, detail: "starting" }));
    });
    const error = await new FleetJobsClient({ baseUrl }).logs(job.id, 1).catch((e) => e);
    expect(error.status).toBe(503);
    expect(error.retryAfterSeconds).toBe(2);
    expect(seen[0].headers.authorization).toBeUndefined();
  });

  it("watches a job's live stream, resumes after a drop from the last id, and passes each change on once", async () => {
    const frame = (position: number, version: number, to: string) =>
      `id: ${position}\ndata: ${JSON.stringify({ jobId: job.id, version, at: "2026-01-01T00:00:00Z", to })}\n\n`;
    let connections = 0;
    routes.set(`GET /api/v1/jobs/${job.id}/events?follow=true`, (req, res) => {
      connections++;
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      if (connections === 1) {
        res.write("retry: 1000\n\n: keep-alive\n\n" + frame(10, 1, "SUBMITTED") + frame(11, 2, "QUEUED"));
        setTimeout(() => res.destroy(), 50); // dropped mid-stream, once those went out
        return;
      }
      expect(req.headers["last-event-id"]).toBe("11");
      // at least once: the server may send the last change again
      res.end(frame(11, 2, "QUEUED") + frame(14, 3, "RUNNING") + frame(15, 4, "SUCCEEDED"));
    });
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const states: string[] = [];
    for await (const event of client.watch(job.id, { intervalMs: 5 })) {
      states.push(event.to);
    }

    expect(states).toEqual(["SUBMITTED", "QUEUED", "RUNNING", "SUCCEEDED"]);
    expect(connections).toBe(2);
  });

  it("polls the job's events where the platform has no live stream, each once, until a terminal state", async () => {
    const history: JobEvent[] = [{ at: "2026-01-01T00:00:00Z", to: "SUBMITTED" }];
    const later: JobEvent[] = [
      { at: "2026-01-01T00:00:01Z", from: "SUBMITTED", to: "QUEUED" },
      { at: "2026-01-01T00:00:02Z", from: "QUEUED", to: "RUNNING" },
      { at: "2026-01-01T00:00:03Z", from: "RUNNING", to: "SUCCEEDED" },
    ];
    const answer: Handler = (_req, res) => {
      json(res, 200, { items: [...history] });
      const next = later.shift();
      if (next) history.push(next);
    };
    routes.set(`GET /api/v1/jobs/${job.id}/events?follow=true`, answer); // an older platform: follow not known
    routes.set(`GET /api/v1/jobs/${job.id}/events`, answer);
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const states: string[] = [];
    for await (const event of client.watch(job.id, { intervalMs: 5 })) {
      states.push(event.to);
    }

    expect(states).toEqual(["SUBMITTED", "QUEUED", "RUNNING", "SUCCEEDED"]);
  });

  it("lists a tenant's keys where the platform lists them, and says null where it does not", async () => {
    const client = new FleetJobsClient({ baseUrl, token: "admin" });
    expect(await client.apiKeys("alice")).toBeNull();

    routes.set("GET /api/v1/admin/tenants/alice/api-keys", (_req, res) => json(res, 200, { items: [{ id: "k1" }] }));
    expect(await client.apiKeys("alice")).toEqual([{ id: "k1" }]);
  });

  it("drains a machine with a reason and revokes a key", async () => {
    routes.set("POST /api/v1/machines/m-1/drain", (req, res) => json(res, 200, { id: "m-1", status: "DRAINING", statusReason: JSON.parse(req.body).reason }));
    routes.set("DELETE /api/v1/admin/tenants/alice/api-keys/k1", (_req, res) => { res.writeHead(204); res.end(); });
    const client = new FleetJobsClient({ baseUrl, token: "admin" });

    expect((await client.operateMachine("m-1", "drain", "maintenance")).statusReason).toBe("maintenance");
    await client.revokeApiKey("alice", "k1");
    expect(seen.map((s) => s.method)).toEqual(["POST", "DELETE"]);
  });

  it("follows an attempt's output while it runs, none yet included, and ends once it has ended", async () => {
    const outputs = [undefined, "a\n", "a\n", "a\nb\n"];
    const states = ["RUNNING", "RUNNING", "RUNNING", "SUCCEEDED"];
    let call = 0;
    routes.set(`GET /api/v1/jobs/${job.id}/attempts/1/logs`, (_req, res) => {
      const out = outputs[Math.min(call, outputs.length - 1)];
      if (out === undefined) json(res, 404, { status: 404 }, "application/problem+json");
      else json(res, 200, { stdout: out, stderr: "" });
    });
    routes.set(`GET /api/v1/jobs/${job.id}/attempts`, (_req, res) => {
      json(res, 200, { items: [{ attempt: 1, machineId: "m", state: states[Math.min(call, states.length - 1)] }] });
      call++;
    });
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const seenOutput: string[] = [];
    for await (const logs of client.followLogs(job.id, 1, { intervalMs: 5 })) {
      seenOutput.push(logs.stdout ?? "");
    }

    expect(seenOutput).toEqual(["a\n", "a\nb\n"]);
  });

  it("streams an attempt's output live, resumes a cut stream after the last byte it got, and stops at its end", async () => {
    const path = `GET /api/v1/jobs/${job.id}/attempts/2/logs?follow=true&stream=stderr&replica=1`;
    let connections = 0;
    routes.set(path, (req, res) => {
      connections++;
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      if (connections === 1) {
        expect(req.headers["last-event-id"]).toBeUndefined();
        res.write(": keep-alive\n\ndata: one\ndata: \nid: 4\n\n");
        setTimeout(() => res.destroy(), 50); // cut, as a restarted gateway cuts it
        return;
      }
      expect(req.headers["last-event-id"]).toBe("4");
      res.end("data:  two\nid: 8\n\nevent: end\ndata: \n\n");
    });
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const pieces: string[] = [];
    for await (const piece of client.streamLogs(job.id, 2, "stderr", { replica: 1, retryMs: 5 })) {
      pieces.push(piece);
    }

    expect(pieces).toEqual(["one\n", " two"]);
    expect(connections).toBe(2);
    expect(seen.every((s) => s.headers.authorization === "Bearer k")).toBe(true);
  });

  it("says why a stream cannot be followed: the API's problem, with Retry-After", async () => {
    routes.set(`GET /api/v1/jobs/${job.id}/attempts/1/logs?follow=true&stream=stdout`, (_req, res) => {
      res.writeHead(429, { "Content-Type": "application/problem+json", "Retry-After": "5" });
      res.end(JSON.stringify({ status: 429, detail: "tenant t follows 32 log streams here" }));
    });
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const error = await client.streamLogs(job.id, 1).next().catch((e: unknown) => e) as ApiError;

    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBe(5);
  });

  it("streams the tenant's changes live, resumes after a drop from the last id, and gives each job's change once", async () => {
    const other = "0b0c6a1e-0000-4000-8000-000000000002";
    const frame = (position: number, jobId: string, version: number, to: string) =>
      `id: ${position}\ndata: ${JSON.stringify({ jobId, version, at: "2026-01-01T00:00:00Z", to })}\n\n`;
    let connections = 0;
    const abort = new AbortController();
    routes.set("GET /api/v1/events?follow=true&since=3", (req, res) => {
      connections++;
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      if (connections === 1) {
        expect(req.headers["last-event-id"]).toBeUndefined();
        res.write("event: horizon\ndata: {\"oldestKept\": 4}\n\n" + frame(4, job.id, 1, "SUBMITTED") + frame(6, other, 3, "RUNNING"));
        setTimeout(() => res.destroy(), 50);
        return;
      }
      expect(req.headers["last-event-id"]).toBe("6");
      res.write(frame(6, other, 3, "RUNNING") + frame(9, job.id, 2, "QUEUED")); // at least once: 6 again
    });
    const client = new FleetJobsClient({ baseUrl, token: "k" });

    const changes: string[] = [];
    for await (const change of client.tenantEvents({ since: 3, signal: abort.signal, retryMs: 5 })) {
      changes.push(`${change.jobId.slice(-1)} ${change.version} ${change.to}`);
      if (changes.length === 3) abort.abort();
    }

    expect(changes).toEqual(["1 1 SUBMITTED", "2 3 RUNNING", "1 2 QUEUED"]);
    expect(connections).toBe(2);
  });
});
