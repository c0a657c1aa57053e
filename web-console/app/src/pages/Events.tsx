import type { StreamedEvent } from "@fleetjobs/sdk";
import { useEffect, useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { time } from "../format";

/** How many changes the page keeps, newest first. */
export const KEPT = 200;

/**
 * The caller's tenant's job changes as they happen (the live event stream, resumed after a drop), newest first, with
 * each job's name asked once.
 */
export function Events() {
  const { client } = useConsole();
  const [changes, setChanges] = useState<StreamedEvent[]>([]);
  const [names, setNames] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [live, setLive] = useState(false);

  useEffect(() => {
    const abort = new AbortController();
    const asked = new Set<string>();
    const run = async () => {
      try {
        setLive(true);
        for await (const change of client.tenantEvents({ signal: abort.signal })) {
          setChanges((rows) => [change, ...rows].slice(0, KEPT));
          if (!asked.has(change.jobId)) {
            asked.add(change.jobId);
            client.get(change.jobId).then((job) => setNames((known) => ({ ...known, [job.id]: job.name })), () => {});
          }
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
