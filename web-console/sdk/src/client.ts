import type {
  Activity, ApiKey, ApiKeyInfo, Attempt, AttemptLogs, Job, JobEvent, JobPage, JobSpec, JobState, Machine, NewTenant,
  Problem, StreamedEvent, Tenant, TenantChange,
} from "./types.js";
import { isTerminal } from "./types.js";

/** An answer other than 2xx: the status, and the problem+json body where the API sent one. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem?: Problem;
  readonly retryAfterSeconds?: number;

  constructor(status: number, problem: Problem | undefined, retryAfterSeconds?: number) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** The message for a field of the request, where the API named it (validation errors). */
  fieldMessage(field: string): string | undefined {
    return this.problem?.errors?.find((e) => e.field === field)?.message;
  }
}

export interface ClientOptions {
  /** Where the gateway answers; "" (the default) means the page's own origin. */
  baseUrl?: string;
  /** The API key or JWT, or a function that gives it at each call (a key that may change). */
  token?: string | (() => string | undefined);
  fetch?: typeof fetch;
}

export interface ListOptions {
  state?: JobState;
  limit?: number;
  pageToken?: string;
  /** exactly this queue */
  queue?: string;
  /** a part of the name, in any case */
  name?: string;
  /** "key" (has the label) or "key=value" */
  label?: string;
}

export interface PollOptions {
  intervalMs?: number;
  signal?: AbortSignal;
}

export interface LogStreamOptions {
  /** Of a gang, the replica's rank (0, the default, for a job of one replica). */
  replica?: number;
  /** The byte offset to start from; by default the last 64 KiB, as `tail -f` starts. */
  offset?: number;
  signal?: AbortSignal;
  /** How long to wait before reconnecting after a drop (500 ms by default). */
  retryMs?: number;
}

export type MachineOperation = "drain" | "cordon" | "uncordon";

/**
 * The public API of FleetJobs, for browsers and Node.js 20+. Each method is one call, except the watchers: watch
 * reads the job's live event stream (and polls a platform without one), followLogs polls, until the job or attempt is
 * done or the signal aborts.
 */
export class FleetJobsClient {
  private readonly baseUrl: string;
  private readonly token: () => string | undefined;
  private readonly fetcher: typeof fetch;

  constructor(options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    const token = options.token;
    this.token = typeof token === "function" ? token : () => token;
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  }

  submit(spec: JobSpec, idempotencyKey?: string): Promise<Job> {
    return this.call("POST", "/api/v1/jobs", spec, idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {});
  }

  get(id: string): Promise<Job> {
    return this.call("GET", `/api/v1/jobs/${enc(id)}`);
  }

  list(options: ListOptions = {}): Promise<JobPage> {
    return this.call("GET", "/api/v1/jobs" + query({ state: options.state, limit: options.limit, pageToken: options.pageToken,
      queue: options.queue, name: options.name, label: options.label }));
  }

  cancel(id: string): Promise<Job> {
    return this.call("POST", `/api/v1/jobs/${enc(id)}/cancel`);
  }

  async attempts(id: string): Promise<Attempt[]> {
    return (await this.call<{ items: Attempt[] }>("GET", `/api/v1/jobs/${enc(id)}/attempts`)).items;
  }

  async events(id: string): Promise<JobEvent[]> {
    return (await this.call<{ items: JobEvent[] }>("GET", `/api/v1/jobs/${enc(id)}/events`)).items;
  }

  /**
   * An attempt's output (of one replica of a gang: its rank, 0 by default); null where there is none yet (the API
   * answers 404 until the agent reports some).
   */
  async logs(id: string, attempt: number, replica = 0): Promise<AttemptLogs | null> {
    try {
      return await this.call<AttemptLogs>("GET", `/api/v1/jobs/${enc(id)}/attempts/${attempt}/logs`
        + (replica === 0 ? "" : `?replica=${replica}`));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        return null;
      }
      throw e;
    }
  }

  /**
   * A job's state changes as they happen, oldest first, each once; it ends after a terminal state. It polls the
   * events of the job (every {@code intervalMs}, 500 by default).
   */
  async *watch(id: string, options: PollOptions = {}): AsyncGenerator<JobEvent> {
    // the live stream (Server-Sent Events), resumed from the last id after a drop; a platform without it is polled
    const stream = this.resumed(`/api/v1/jobs/${enc(id)}/events?follow=true`, options.signal, options.intervalMs);
    let version = 0;
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      if (next.value.event !== "message") continue; // "horizon": what came before is no longer kept
      const change = JSON.parse(next.value.data) as JobEvent & { version: number };
      if (change.version <= version) continue; // at least once across reconnects: each change once here
      version = change.version;
      yield { at: change.at, from: change.from, to: change.to, reason: change.reason } as JobEvent;
      if (isTerminal(change.to)) {
        await stream.return(true);
        return;
      }
    }
    if (!options.signal?.aborted) yield* this.poll(id, options);
  }

  /** The job's events by polling its history, each once, until a terminal state. */
  private async *poll(id: string, options: PollOptions): AsyncGenerator<JobEvent> {
    let seen = 0;
    while (!options.signal?.aborted) {
      const events = await this.events(id);
      for (const event of events.slice(seen)) {
        yield event;
      }
      seen = Math.max(seen, events.length);
      if (isTerminal(events[events.length - 1]?.to)) {
        return;
      }
      await pause(options.intervalMs ?? 500, options.signal);
    }
  }

  /** An attempt's output each time it changes, until the attempt has ended (then once more) or the signal aborts. */
  async *followLogs(id: string, attempt: number, options: PollOptions = {}): AsyncGenerator<AttemptLogs> {
    let last: string | undefined;
    while (!options.signal?.aborted) {
      const [logs, attempts] = await Promise.all([this.logs(id, attempt), this.attempts(id)]);
      const key = logs ? JSON.stringify(logs) : undefined;
      if (logs && key !== last) {
        last = key;
        yield logs;
      }
      const state = attempts.find((a) => a.attempt === attempt)?.state;
      if (state !== undefined && state !== "SCHEDULED" && state !== "RUNNING") {
        const final = await this.logs(id, attempt);
        if (final && JSON.stringify(final) !== last) {
          yield final;
        }
        return;
      }
      await pause(options.intervalMs ?? 1000, options.signal);
    }
  }

  /**
   * One stream of an attempt's output live, as the job prints it: each piece of text as it arrives (CR and CR LF as
   * line feeds, bytes that are not UTF-8 as U+FFFD), until the attempt has ended and every byte up to its end came, or
   * the signal aborts. A dropped connection is resumed from the last byte received (`Last-Event-ID`), so no piece comes
   * twice or is skipped; five failed connections in a row end it with their error. An answer other than 2xx is an
   * ApiError (404 until the attempt exists, 429 when the tenant follows too many streams).
   */
  async *streamLogs(id: string, attempt: number, stream: "stdout" | "stderr" = "stdout",
    options: LogStreamOptions = {}): AsyncGenerator<string> {
    const replica = options.replica ?? 0;
    const path = `/api/v1/jobs/${enc(id)}/attempts/${attempt}/logs`
      + query({ follow: "true", stream, replica: replica === 0 ? undefined : replica, offset: options.offset });
    for await (const message of this.resumed(path, options.signal, options.retryMs)) {
      if (message.event === "end") return;
      if (message.event === "message") yield message.data;
    }
  }

  /**
   * Every state change of every job of the caller's tenant as it happens, from now on (or after position
   * {@code since}), each once, until the signal aborts; a dropped connection is resumed from the last change received.
   */
  async *tenantEvents(options: { since?: number; signal?: AbortSignal; retryMs?: number } = {}): AsyncGenerator<StreamedEvent> {
    const seen = new Map<string, number>(); // at least once across reconnects: each job's version once here
    for await (const message of this.resumed("/api/v1/events" + query({ follow: "true", since: options.since }),
      options.signal, options.retryMs)) {
      if (message.event !== "message") continue; // "horizon": what came before is no longer kept
      const change = JSON.parse(message.data) as StreamedEvent;
      if ((seen.get(change.jobId) ?? 0) >= change.version) continue;
      seen.set(change.jobId, change.version);
      if (seen.size > 10_000) seen.delete(seen.keys().next().value as string);
      yield change;
    }
  }

  /**
   * The events of a Server-Sent Events stream, reconnecting after a drop with the last id received
   * (`Last-Event-ID`), until an event named `end` has been given, the signal aborts, or five connections in a row
   * cannot be made (then the last one's error): as a browser's EventSource, it reconnects after every drop. An answer
   * other than 2xx is an ApiError; one that is not an event stream (a platform without it) ends it, returning false.
   */
  private async *resumed(path: string, signal?: AbortSignal, retryMs = 500): AsyncGenerator<ServerSentEvent, boolean> {
    let lastId: string | undefined;
    let failures = 0;
    while (!signal?.aborted) {
      const headers: Record<string, string> = { Accept: "text/event-stream, application/problem+json" };
      const token = this.token();
      if (token) headers.Authorization = `Bearer ${token}`;
      if (lastId) headers["Last-Event-ID"] = lastId;
      let response: Response;
      try {
        response = await this.fetcher(this.baseUrl + path, { headers, signal });
      } catch (e) {
        if (signal?.aborted) return true;
        if (++failures > 5) throw e;
        await pause(retryMs, signal);
        continue;
      }
      if (!response.ok) {
        const text = await response.text();
        const retry = Number(response.headers.get("Retry-After"));
        throw new ApiError(response.status, parseProblem(text), Number.isFinite(retry) && retry > 0 ? retry : undefined);
      }
      if (!(response.headers.get("Content-Type") ?? "").startsWith("text/event-stream") || !response.body) {
        await response.body?.cancel();
        return false;
      }
      failures = 0;
      try {
        for await (const message of serverSentEvents(response.body)) {
          if (message.id) lastId = message.id;
          yield message;
          if (message.event === "end") return true;
        }
      } catch (e) {
        if (signal?.aborted) return true;
        // the connection dropped: resume after the last event
      }
      await pause(retryMs, signal);
    }
    return true;
  }

  /** The last hour's changes by state in five-minute buckets, and placements a second over the last minute. */
  activity(): Promise<Activity> {
    return this.call("GET", "/api/v1/activity");
  }

  async machines(): Promise<Machine[]> {
    return (await this.call<{ items: Machine[] }>("GET", "/api/v1/machines")).items;
  }

  operateMachine(machineId: string, operation: MachineOperation, reason: string): Promise<Machine> {
    return this.call("POST", `/api/v1/machines/${enc(machineId)}/${operation}`, { reason });
  }

  /** The caller's own tenant: its weight, quota and what its jobs hold now (`usage`). */
  ownTenant(): Promise<Tenant> {
    return this.call("GET", "/api/v1/tenant");
  }

  async tenants(): Promise<Tenant[]> {
    return (await this.call<{ items: Tenant[] }>("GET", "/api/v1/admin/tenants")).items;
  }

  tenant(name: string): Promise<Tenant> {
    return this.call("GET", `/api/v1/admin/tenants/${enc(name)}`);
  }

  createTenant(tenant: NewTenant): Promise<Tenant> {
    return this.call("POST", "/api/v1/admin/tenants", tenant);
  }

  updateTenant(name: string, change: TenantChange): Promise<Tenant> {
    return this.call("PATCH", `/api/v1/admin/tenants/${enc(name)}`, change);
  }

  issueApiKey(tenant: string): Promise<ApiKey> {
    return this.call("POST", `/api/v1/admin/tenants/${enc(tenant)}/api-keys`, {});
  }

  async revokeApiKey(tenant: string, keyId: string): Promise<void> {
    await this.call("DELETE", `/api/v1/admin/tenants/${enc(tenant)}/api-keys/${enc(keyId)}`);
  }

  /** A tenant's keys without their secrets; null where this platform does not list keys. */
  async apiKeys(tenant: string): Promise<ApiKeyInfo[] | null> {
    try {
      const page = await this.call<{ items: ApiKeyInfo[] } | ApiKeyInfo[]>("GET", `/api/v1/admin/tenants/${enc(tenant)}/api-keys`);
      return Array.isArray(page) ? page : page.items;
    } catch (e) {
      if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
        return null;
      }
      throw e;
    }
  }

  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const all: Record<string, string> = { Accept: "application/json, application/problem+json", ...headers };
    const token = this.token();
    if (token) {
      all.Authorization = `Bearer ${token}`;
    }
    if (body !== undefined) {
      all["Content-Type"] = "application/json";
    }
    const response = await this.fetcher(this.baseUrl + path, {
      method, headers: all, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      const retry = Number(response.headers.get("Retry-After"));
      throw new ApiError(response.status, parseProblem(text), Number.isFinite(retry) && retry > 0 ? retry : undefined);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** One Server-Sent Event: its type ("message" unless named), its id, its data lines joined. */
interface ServerSentEvent {
  event: string;
  id?: string;
  data: string;
}

/** The events of a text/event-stream body, as they arrive (comments and retry: lines skipped). */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let event = "message";
  let id: string | undefined;
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        if (line === "") {
          if (data.length > 0) yield { event, id, data: data.join("\n") };
          event = "message";
          id = undefined;
          data = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") data.push(value);
          else if (field === "event") event = value;
          else if (field === "id") id = value;
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function parseProblem(text: string): Problem | undefined {
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === "object" ? (parsed as Problem) : undefined;
  } catch {
    return undefined;
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") {
      search.set(name, String(value));
    }
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
