import { isTerminal, type Attempt, type JobEvent } from "@fleetjobs/sdk";
import { useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { message, time } from "../format";
import { usePoll } from "../hooks";

/** A job: its spec, its timeline, its attempts and an attempt's output, all refreshed while it is not done. */
export function JobPage({ id }: { id: string }) {
  const { client } = useConsole();
  const [done, setDone] = useState(false);
  const job = usePoll(async () => {
    const [j, events, attempts] = await Promise.all([client.get(id), client.events(id), client.attempts(id)]);
    setDone(isTerminal(j.state));
    return { job: j, events, attempts };
  }, done ? 0 : 1000, [id, done]);
  const [chosen, setChosen] = useState<number>();
  const [cancelError, setCancelError] = useState<unknown>();
  const [canceling, setCanceling] = useState(false);

  if (!job.data) {
    return <section><h2>Job {id}</h2><ErrorBox error={job.error} />{job.loading && <p>Loading…</p>}</section>;
  }
  const { job: j, events, attempts } = job.data;
  const attempt = chosen ?? attempts[attempts.length - 1]?.attempt;

  async function cancel() {
    setCanceling(true);
    setCancelError(undefined);
    try {
      await client.cancel(id);
      job.refresh();
    } catch (e) {
      setCancelError(e);
    } finally {
      setCanceling(false);
    }
  }

  return (
    <section aria-labelledby="job-title">
      <h2 id="job-title">{j.name} <StateBadge state={j.state} /></h2>
      <p className="muted">{j.id} · queue {j.queue} · priority {j.priority} · attempt {j.attempt}
        {j.cancelRequested && !isTerminal(j.state) ? " · cancel requested" : ""}</p>
      {j.stateReason && <p className="reason" data-testid="state-reason">{j.stateReason}</p>}
      {!isTerminal(j.state) && (
        <button type="button" className="danger" onClick={cancel} disabled={canceling || j.cancelRequested}>
          {j.cancelRequested ? "Cancel requested" : "Cancel job"}
        </button>
      )}
      <ErrorBox error={cancelError ?? job.error} />
      <div className="columns">
        <div>
          <h3>Timeline</h3>
          <Timeline events={events} />
        </div>
        <div>
          <h3>Spec</h3>
          <pre className="spec">{JSON.stringify({
            resources: j.resources, placement: j.placement, execution: j.execution, retry: j.retry, labels: j.labels,
            preemptible: j.preemptible,
          }, null, 2)}</pre>
        </div>
      </div>
      <h3>Attempts</h3>
      <Attempts attempts={attempts} chosen={attempt} onChoose={setChosen} />
      {attempt !== undefined && (
        <Logs jobId={id} attempt={attempt} running={isLive(attempts.find((a) => a.attempt === attempt))} />
      )}
    </section>
  );
}

function isLive(attempt: Attempt | undefined): boolean {
  return attempt === undefined || attempt.state === "SCHEDULED" || attempt.state === "RUNNING";
}

export function Timeline({ events }: { events: JobEvent[] }) {
  return (
    <ol className="timeline">
      {events.map((e, i) => (
        <li key={i}>
          <time dateTime={e.at}>{time(e.at)}</time> <StateBadge state={e.to} />
          {e.reason && <span className="reason"> {e.reason}</span>}
        </li>
      ))}
    </ol>
  );
}

export function Attempts({ attempts, chosen, onChoose }: { attempts: Attempt[]; chosen?: number; onChoose: (n: number) => void }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr><th>#</th><th>Machine</th><th>State</th><th>Scheduled</th><th>Started</th><th>Finished</th><th>Exit</th><th>Reason</th><th>GPUs</th><th>Logs</th></tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.attempt} className={a.attempt === chosen ? "chosen" : undefined}>
              <td>{a.attempt}</td>
              <td>{a.machineId}</td>
              <td><StateBadge state={a.state} /></td>
              <td>{time(a.scheduledAt)}</td>
              <td>{time(a.startedAt)}</td>
              <td>{time(a.finishedAt)}</td>
              <td>{a.exitCode ?? "—"}</td>
              <td>{a.failureReason ?? ""}</td>
              <td>{a.gpus && a.gpus.length > 0 ? a.gpus.join(", ") : "—"}</td>
              <td><button type="button" onClick={() => onChoose(a.attempt)} aria-pressed={a.attempt === chosen}>Show logs of {a.attempt}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** An attempt's output, asked again every second while the attempt runs; none yet is not an error. */
export function Logs({ jobId, attempt, running }: { jobId: string; attempt: number; running: boolean }) {
  const { client } = useConsole();
  const logs = usePoll(() => client.logs(jobId, attempt), running ? 1000 : 0, [jobId, attempt, running]);
  return (
    <div className="logs" aria-live="polite">
      <h3>Logs of attempt {attempt}{running ? " (following)" : ""}</h3>
      {logs.error ? <p className="error" role="alert">{message(logs.error)}</p> : null}
      {logs.data === null && <p className="muted" data-testid="no-output">No output yet.</p>}
      {logs.data && (
        <>
          <h4>stdout</h4>
          <pre data-testid="stdout">{logs.data.stdout || ""}</pre>
          {logs.data.stderr ? <><h4>stderr</h4><pre data-testid="stderr">{logs.data.stderr}</pre></> : null}
        </>
      )}
    </div>
  );
}
