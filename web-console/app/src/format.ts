import { ApiError } from "@fleetjobs/sdk";

export function message(error: unknown): string {
  if (error instanceof ApiError) {
    return `${error.status}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function time(at: string | undefined | null): string {
  if (!at) return "—";
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? at : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** How long ago, from {@code now}: "3 s", "4 min", "2 h". */
export function age(at: string | undefined | null, now: number = Date.now()): string {
  if (!at) return "—";
  const seconds = Math.max(0, Math.round((now - new Date(at).getTime()) / 1000));
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

export function labels(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {}).map(([k, v]) => `${k}=${v}`).join(", ");
}

/** "a=1, b=2" -> {a: "1", b: "2"}; blank parts are left out. */
export function parseLabels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const [k, ...rest] = part.split("=");
    if (k.trim()) out[k.trim()] = rest.join("=").trim();
  }
  return out;
}
