import { FleetJobsClient } from "@fleetjobs/sdk";
import { render } from "@testing-library/react";
import type { ReactNode } from "react";
import { ConsoleContext } from "../src/context";
import type { Session } from "../src/session";

export type Answer = { status: number; body?: unknown; headers?: Record<string, string>; events?: string };

/** A client whose fetch answers from a table ("GET /api/v1/jobs?limit=1" -> answer); unknown calls are 404. */
export function fakeClient(answers: Record<string, Answer | (() => Answer)>, calls: string[] = []): FleetJobsClient {
  return new FleetJobsClient({
    token: "test-key",
    fetch: async (input, init) => {
      const url = String(input);
      const call = `${init?.method ?? "GET"} ${url}`;
      calls.push(init?.body ? `${call} ${init.body}` : call);
      const entry = answers[call];
      const answer = typeof entry === "function" ? entry() : entry ?? { status: 404, body: { status: 404, title: "Not Found" } };
      if (answer.events !== undefined) { // a text/event-stream body, as it is
        return new Response(answer.events, { status: answer.status, headers: { "Content-Type": "text/event-stream" } });
      }
      return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
        status: answer.status,
        headers: { "Content-Type": answer.status >= 400 ? "application/problem+json" : "application/json", ...answer.headers },
      });
    },
  });
}

export function renderWith(ui: ReactNode, client: FleetJobsClient, session: Session = { key: "k", admin: false }, navigate: (h: string) => void = () => {}) {
  return render(
    <ConsoleContext.Provider value={{ client, session, navigate, signOut: () => {} }}>{ui}</ConsoleContext.Provider>,
  );
}

export function job(overrides: Record<string, unknown> = {}) {
  return {
    id: "00000000-0000-4000-8000-000000000001", tenant: "alice", name: "hello", queue: "default", priority: 500,
    resources: { cpu: 1, memoryMb: 64, gpuCount: 0 }, placement: {}, execution: { command: ["true"] },
    retry: { maxAttempts: 3, backoffSeconds: 5, maxBackoffSeconds: 300 }, labels: {}, state: "QUEUED", attempt: 0,
    cancelRequested: false, createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", ...overrides,
  };
}
