import type { components } from "./generated/api.js";

type Schemas = components["schemas"];

export type JobSpec = Schemas["JobSpec"];
export type Job = Schemas["Job"];
export type JobPage = Schemas["JobPage"];
export type JobState = Schemas["JobState"];
export type Attempt = Schemas["Attempt"];
export type AttemptLogs = Schemas["AttemptLogs"];
export type JobEvent = Schemas["Event"];
export type StreamedEvent = Schemas["StreamedEvent"];
export type Tenant = Schemas["Tenant"];
export type NewTenant = Schemas["NewTenant"];
export type TenantChange = Schemas["TenantChange"];
export type Quota = Schemas["Quota"];
export type ApiKey = Schemas["ApiKey"];
export type Machine = Schemas["Machine"];
export type MachineStatus = Schemas["MachineStatus"];
export type Capacity = Schemas["Capacity"];
export type GpuDevice = Schemas["GpuDevice"];
export type Activity = Schemas["Activity"];
export type ActivityBucket = Schemas["ActivityBucket"];
export type Problem = Schemas["Problem"];
export type FieldError = Schemas["FieldError"];

/** A key as listed, never with its secret (the list may not be served by every version of the platform). */
export interface ApiKeyInfo {
  id: string;
  createdAt?: string;
  lastUsedAt?: string | null;
  revokedAt?: string | null;
}

export const JOB_STATES: readonly JobState[] = [
  "SUBMITTED", "QUEUED", "SCHEDULED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELED",
];

export const TERMINAL_STATES: readonly JobState[] = ["SUCCEEDED", "FAILED", "CANCELED"];

export function isTerminal(state: JobState | undefined): boolean {
  return state !== undefined && TERMINAL_STATES.includes(state);
}
