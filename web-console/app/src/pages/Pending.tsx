import type { Job } from "@fleetjobs/sdk";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { usePoll } from "../hooks";

const MAX_PER_STATE = 500;

export interface Group {
  reason: string;
  jobs: Job[];
}

/** Waiting jobs by the reason the scheduler last gave (its explanation of the filters that ruled machines out). */
export function groupByReason(jobs: Job[]): Group[] {
  const groups = new Map<string, Job[]>();
  for (const job of jobs) {
    const reason = job.stateReason?.trim() || "waiting for the scheduler's next pass";
    groups.set(reason, [...(groups.get(reason) ?? []), job]);
  }
  return [...groups.entries()].map(([reason, list]) => ({ reason, jobs: list })).sort((a, b) => b.jobs.length - a.jobs.length);
}

export function Pending() {
  const { client } = useConsole();
  const waiting = usePoll(async () => {
    const [queued, submitted] = await Promise.all([
      client.list({ state: "QUEUED", limit: MAX_PER_STATE }), client.list({ state: "SUBMITTED", limit: MAX_PER_STATE }),
    ]);
    return { jobs: [...queued.items, ...submitted.items], more: Boolean(queued.nextPageToken || submitted.nextPageToken) };
  }, 3000, []);
  const groups = groupByReason(waiting.data?.jobs ?? []);

  return (
    <section aria-labelledby="pending-title">
      <h2 id="pending-title">Why pending</h2>
      <ErrorBox error={waiting.error} />
      {waiting.data && groups.length === 0 && <p className="muted">Nothing is waiting.</p>}
      {waiting.data?.more && <p className="muted">Showing the newest {MAX_PER_STATE} jobs of each waiting state.</p>}
      {groups.map((g) => (
        <article key={g.reason} className="group">
          <h3><span className="count">{g.jobs.length}</span> <span className="reason">{g.reason}</span></h3>
          <ul>
            {g.jobs.slice(0, 20).map((j) => (
              <li key={j.id}><a href={`#/jobs/${j.id}`}>{j.name}</a> <StateBadge state={j.state} /> <span className="muted">{j.queue}</span></li>
            ))}
            {g.jobs.length > 20 && <li className="muted">and {g.jobs.length - 20} more</li>}
          </ul>
        </article>
      ))}
    </section>
  );
}
