import { JOB_STATES, type Activity, type JobState, type Machine } from "@fleetjobs/sdk";
import { Bar } from "../components/Bar";
import { Holding } from "../components/Holding";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { usePoll } from "../hooks";

const COUNT_LIMIT = 500;

export interface Utilisation {
  model: string;
  machines: number;
  cpu: [number, number];
  memoryMb: [number, number];
  gpuCount: [number, number];
}

/** Allocated and capacity summed by GPU model (machines without GPUs as "CPU only"); lost machines left out. */
export function byGpuModel(machines: Machine[]): Utilisation[] {
  const out = new Map<string, Utilisation>();
  for (const m of machines) {
    if (m.status === "LOST") continue;
    const model = (m.capacity?.gpuCount ?? 0) > 0 ? m.gpus?.[0]?.model ?? m.gpuType ?? "GPU" : "CPU only";
    const u = out.get(model) ?? { model, machines: 0, cpu: [0, 0], memoryMb: [0, 0], gpuCount: [0, 0] };
    u.machines++;
    for (const d of ["cpu", "memoryMb", "gpuCount"] as const) {
      u[d][0] += m.allocated?.[d] ?? 0;
      u[d][1] += m.capacity?.[d] ?? 0;
    }
    out.set(model, u);
  }
  return [...out.values()].sort((a, b) => a.model.localeCompare(b.model));
}

/** The last hour as rows: each bucket's time and how many changes entered each state, every state present. */
export function lastHour(activity: Activity): { start: string; entered: Record<JobState, number> }[] {
  return activity.buckets.map((b) => ({
    start: b.start,
    entered: Object.fromEntries(JOB_STATES.map((s) => [s, Number(b.entered[s] ?? 0)])) as Record<JobState, number>,
  }));
}

export function Overview() {
  const { client, session } = useConsole();
  const counts = usePoll(async () => {
    const pages = await Promise.all(JOB_STATES.map((state) => client.list({ state, limit: COUNT_LIMIT })));
    return JOB_STATES.map((state, i) => ({ state, count: pages[i].items.length, more: Boolean(pages[i].nextPageToken) }));
  }, 5000, []);
  const fleet = usePoll(() => (session.admin ? client.machines() : Promise.resolve(null)), 5000, [session.admin]);
  const activity = usePoll(() => client.activity(), 5000, []);
  const own = usePoll(() => (session.admin ? Promise.resolve(null) : client.ownTenant()), 5000, [session.admin]);

  return (
    <section aria-labelledby="overview-title">
      <h2 id="overview-title">Overview</h2>
      {own.data && (
        <>
          <h3>What your jobs hold</h3>
          <Holding tenant={own.data} />
        </>
      )}
      <ErrorBox error={own.error} />
      <h3>Jobs by state</h3>
      <ErrorBox error={counts.error} />
      <ul className="state-counts">
        {(counts.data ?? []).map((c: { state: JobState; count: number; more: boolean }) => (
          <li key={c.state}><a href={`#/jobs?state=${c.state}`}><StateBadge state={c.state} /> <strong data-state={c.state}>{c.count}{c.more ? "+" : ""}</strong></a></li>
        ))}
      </ul>
      <h3>The last hour</h3>
      <ErrorBox error={activity.error} />
      {activity.data && (
        <>
          <p>Placements a second over the last minute: <strong data-testid="placements">{activity.data.placementsPerSecond.toFixed(2)}</strong></p>
          <div className="table-wrap">
            <table aria-label="changes by state, five minutes a row">
              <thead><tr><th>From</th>{JOB_STATES.map((s) => <th key={s}>{s}</th>)}</tr></thead>
              <tbody>
                {lastHour(activity.data).map((row) => (
                  <tr key={row.start}><td>{new Date(row.start).toLocaleTimeString()}</td>
                    {JOB_STATES.map((s) => <td key={s}>{row.entered[s] || ""}</td>)}</tr>
                ))}
                {activity.data.buckets.length === 0 && <tr><td colSpan={JOB_STATES.length + 1} className="empty">Nothing changed in the last hour.</td></tr>}
              </tbody>
            </table>
          </div>
        </>
      )}
      {session.admin && (
        <>
          <h3>Fleet utilisation by GPU model</h3>
          <ErrorBox error={fleet.error} />
          <div className="cards">
            {byGpuModel(fleet.data ?? []).map((u) => (
              <article key={u.model} className="card" aria-label={`utilisation of ${u.model}`}>
                <h4>{u.model} <span className="muted">({u.machines} machines)</span></h4>
                <Bar label="CPU" used={u.cpu[0]} total={u.cpu[1]} />
                <Bar label="Memory" used={u.memoryMb[0]} total={u.memoryMb[1]} unit=" MB" />
                {u.gpuCount[1] > 0 && <Bar label="GPUs" used={u.gpuCount[0]} total={u.gpuCount[1]} />}
              </article>
            ))}
          </div>
        </>
      )}
    </section>
  );
}
