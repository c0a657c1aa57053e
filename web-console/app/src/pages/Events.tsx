import type { StreamedEvent } from "@fleetjobs/sdk";
import { useEffect, useRef, useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { time } from "../format";

/** How many changes the page keeps, newest first. */
export const KEPT = 200;
/** How often the names of the jobs shown are looked up, and how many jobs one by one at most each time. */
const NAMES_EVERY_MS = 2000;
const NAMES_ONE_BY_ONE = 5;

/**
 * The caller's tenant's job changes as they happen (the live event stream, resumed after a drop), newest first, with
 * the jobs' names: looked up every two seconds for the jobs shown without one, in the newest jobs' page and then a few
 * one by one, so that a tenant whose jobs change a thousand times a second costs a few calls, not a thousand.
 */
export function Events() {
  const { client } = useConsole();
  const [changes, setChanges] = useState<StreamedEvent[]>([]);
  const [names, setNames] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    const run = async () => {
      try {
        setLive(true);
        for await (const change of client.tenantEvents({ signal: abort.signal })) {
          setChanges((rows) => [change, ...rows].slice(0, KEPT));
        }
      } catch (e) {
        if (!abort.signal.aborted) setError(e);
      } finally {
        if (!abort.signal.aborted) setLive(false);
      }
    };
    void run();
    return () => abort.abort();
  }, [client]);

  const unnamed = useRef<string[]>([]);
  unnamed.current = [...new Set(changes.map((c) => c.jobId))].filter((id) => names[id] === undefined);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const look = async () => {
      const wanted = unnamed.current;
      if (wanted.length > 0) {
        const found: Record<string, string> = {};
        try {
          for (const job of (await client.list({ limit: KEPT })).items) found[job.id] = job.name;
        } catch {
          // the newest jobs' page could not be read: a few one by one still are
        }
        const rest = wanted.filter((id) => found[id] === undefined).slice(0, NAMES_ONE_BY_ONE);
        const one = await Promise.allSettled(rest.map((id) => client.get(id)));
        one.forEach((r, i) => { if (r.status === "fulfilled") found[rest[i]] = r.value.name; });
        if (!stopped) setNames((known) => ({ ...known, ...found }));
      }
      if (!stopped) timer = setTimeout(look, NAMES_EVERY_MS);
    };
    timer = setTimeout(look, 500);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [client]);

  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Live events</h2>
      <p className="muted">
        Every change of your jobs from the moment this page opened, as it happens, newest first (the last {KEPT}).
        {live ? " Following." : ""}
      </p>
      <ErrorBox error={error} />
      {changes.length === 0 && !error && <p className="muted" data-testid="no-events">No change yet.</p>}
      {changes.length > 0 && (
        <div className="table-wrap">
          <table aria-label="live events">
            <thead><tr><th>At</th><th>Job</th><th>From</th><th>To</th><th>Reason</th></tr></thead>
            <tbody>
              {changes.map((c) => (
                <tr key={`${c.jobId}.${c.version}`} data-job={c.jobId}>
                  <td><time dateTime={c.at}>{time(c.at)}</time></td>
                  <td><a href={`#/jobs/${encodeURIComponent(c.jobId)}`}>{names[c.jobId] ?? c.jobId}</a></td>
                  <td>{c.from ? <StateBadge state={c.from} /> : "—"}</td>
                  <td><StateBadge state={c.to} /></td>
                  <td className="reason">{c.reason ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
