import { isTerminal, type Attempt, type JobEvent } from "@fleetjobs/sdk";
import { useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { message, time } from "../format";
import { useLiveText, usePoll } from "../hooks";

/** A job: its spec, its timeline, its attempts and an attempt's output, all refreshed while it is not done. */
export function JobPage({ id }: { id: string }) {
  const { client } = useConsole();
  const [done, setDone] = useState(false);
  const job = usePoll(async () => {
    const [j, events, attempts] = await Promise.all([client.get(id), client.events(id), client.attempts(id)]);
    setDone(isTerminal(j.state));
    return { job: j, events, attempts };
  }, done ? 0 : 1000, [id, done]);
  const [chosen, setChosen] = useState<Chosen>();
  const [cancelError, setCancelError] = useState<unknown>();
  const [canceling, setCanceling] = useState(false);

  if (!job.data) {
    return <section><h2>Job {id}</h2><ErrorBox error={job.error} />{job.loading && <p>Loading…</p>}</section>;
  }
  const { job: j, events, attempts } = job.data;
  const latest = attempts[attempts.length - 1];
  const shown: Chosen | undefined = chosen ?? (latest && { attempt: latest.attempt, replica: 0 });

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
            preemptible: j.preemptible, replicas: j.replicas,
          }, null, 2)}</pre>
        </div>
      </div>
      <h3>Attempts</h3>
      <Attempts attempts={attempts} chosen={shown} onChoose={setChosen} />
      {shown !== undefined && (
        <Logs jobId={id} attempt={shown.attempt} replica={shown.replica}
          running={isLive(attempts.find((a) => a.attempt === shown.attempt && (a.replica ?? 0) === shown.replica))} />
      )}
    </section>
  );
}

/** Whose logs are shown: an attempt, and of a gang one replica (its rank; 0 for a job of one replica). */
export type Chosen = { attempt: number; replica: number };

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

export function Attempts({ attempts, chosen, onChoose }: { attempts: Attempt[]; chosen?: Chosen; onChoose: (c: Chosen) => void }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  const gang = attempts.some((a) => (a.worldSize ?? 1) > 1);
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr><th>#</th>{gang && <th>Replica</th>}<th>Machine</th><th>State</th><th>Scheduled</th><th>Started</th><th>Finished</th><th>Exit</th><th>Reason</th><th>GPUs</th><th>Logs</th></tr>
        </thead>
        <tbody>
          {attempts.map((a) => {
            const replica = a.replica ?? 0;
            const isChosen = a.attempt === chosen?.attempt && replica === chosen?.replica;
            const name = gang ? `${a.attempt}, replica ${replica}` : `${a.attempt}`;
            return (
              <tr key={`${a.attempt}.${replica}`} className={isChosen ? "chosen" : undefined}>
                <td>{a.attempt}</td>
                {gang && <td>{replica} of {a.worldSize}</td>}
                <td>{a.machineId}</td>
                <td><StateBadge state={a.state} /></td>
                <td>{time(a.scheduledAt)}</td>
                <td>{time(a.startedAt)}</td>
                <td>{time(a.finishedAt)}</td>
                <td>{a.exitCode ?? "—"}</td>
                <td>{a.failureReason ?? ""}</td>
                <td>{a.gpus && a.gpus.length > 0 ? a.gpus.join(", ") : "—"}</td>
                <td><button type="button" onClick={() => onChoose({ attempt: a.attempt, replica })} aria-pressed={isChosen}>Show logs of {name}</button></td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * An attempt's output: while it runs, each stream live as the job prints it (from its last 64 KiB, as `jobctl logs -f`
 * starts); once it has ended, the stored tails (the last 64 KiB of each).
 */
export function Logs({ jobId, attempt, replica = 0, running }: { jobId: string; attempt: number; replica?: number; running: boolean }) {
  return (
    <div className="logs" aria-live="polite">
      <h3>Logs of attempt {attempt}{replica > 0 ? `, replica ${replica}` : ""}{running ? " (following)" : ""}</h3>
      {running
        ? <LiveLogs jobId={jobId} attempt={attempt} replica={replica} />
        : <StoredLogs jobId={jobId} attempt={attempt} replica={replica} />}
    </div>
  );
}

function LiveLogs({ jobId, attempt, replica }: { jobId: string; attempt: number; replica: number }) {
  const { client } = useConsole();
  const deps = [jobId, attempt, replica];
  const stdout = useLiveText((signal) => client.streamLogs(jobId, attempt, "stdout", { replica, signal }), deps);
  const stderr = useLiveText((signal) => client.streamLogs(jobId, attempt, "stderr", { replica, signal }), deps);
  const error = stdout.error ?? stderr.error;
  return (
    <>
      {error ? <p className="error" role="alert">{message(error)}</p> : null}
      <Output stdout={stdout.text} stderr={stderr.text} />
    </>
  );
}

function StoredLogs({ jobId, attempt, replica }: { jobId: string; attempt: number; replica: number }) {
  const { client } = useConsole();
  const logs = usePoll(() => client.logs(jobId, attempt, replica), 0, [jobId, attempt, replica]);
  return (
    <>
      {logs.error ? <p className="error" role="alert">{message(logs.error)}</p> : null}
      {logs.data === null ? <Output stdout={null} stderr={null} />
        : logs.data ? <Output stdout={logs.data.stdout ?? ""} stderr={logs.data.stderr ?? null} /> : null}
    </>
  );
}

function Output({ stdout, stderr }: { stdout: string | null; stderr: string | null }) {
  if (stdout === null && stderr === null) return <p className="muted" data-testid="no-output">No output yet.</p>;
  return (
    <>
      <h4>stdout</h4>
      <pre data-testid="stdout">{stdout ?? ""}</pre>
      {stderr ? <><h4>stderr</h4><pre data-testid="stderr">{stderr}</pre></> : null}
    </>
  );
}
