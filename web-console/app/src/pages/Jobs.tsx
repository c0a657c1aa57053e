import { JOB_STATES, type Job, type JobState } from "@fleetjobs/sdk";
import { useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { labels, time } from "../format";
import { usePoll } from "../hooks";

export const PAGE_SIZE = 50;

/** The state asked for in the route ("#/jobs?state=RUNNING"), where it names one. */
export function initialState(hash: string): JobState | "" {
  const asked = new URLSearchParams(hash.split("?")[1] ?? "").get("state");
  return JOB_STATES.find((s) => s === asked) ?? "";
}

/** The caller's jobs, newest first, a page at a time from the server, refreshed every 2 s. */
export function Jobs() {
  const { client, navigate } = useConsole();
  const [state, setState] = useState<JobState | "">(() => initialState(window.location.hash));
  const [queue, setQueue] = useState("");
  const [label, setLabel] = useState("");
  const [name, setName] = useState("");
  const [tokens, setTokens] = useState<(string | undefined)[]>([undefined]);
  const token = tokens[tokens.length - 1];
  // every filter is the server's, so a page is a page of matching jobs however many there are
  const page = usePoll(() => client.list({ state: state || undefined, limit: PAGE_SIZE, pageToken: token,
    queue: queue.trim() || undefined, label: label.trim() || undefined, name: name.trim() || undefined }), 2000,
    [state, token, queue, label, name]);
  const shown = page.data?.items ?? [];

  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>State
          <select value={state} onChange={(e) => { setState(e.target.value as JobState | ""); setTokens([undefined]); }}>
            <option value="">any</option>
            {JOB_STATES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        <label>Queue <input value={queue} onChange={(e) => { setQueue(e.target.value); setTokens([undefined]); }} placeholder="default" /></label>
        <label>Label <input value={label} onChange={(e) => { setLabel(e.target.value); setTokens([undefined]); }} placeholder="team=vision" /></label>
        <label>Name <input value={name} onChange={(e) => { setName(e.target.value); setTokens([undefined]); }} placeholder="part of a name" /></label>
      </form>
      <ErrorBox error={page.error} />
      <div className="table-wrap">
        <table>
          <thead>
            <tr><th>Name</th><th>State</th><th>Queue</th><th>Priority</th><th>Labels</th><th>Created</th><th>Reason</th></tr>
          </thead>
          <tbody>
            {shown.map((job) => (
              <tr key={job.id}>
                <td><a href={`#/jobs/${job.id}`}>{job.name}</a></td>
                <td><StateBadge state={job.state} /></td>
                <td>{job.queue}</td>
                <td>{job.priority}</td>
                <td>{labels(job.labels)}</td>
                <td>{time(job.createdAt)}</td>
                <td className="reason">{job.stateReason ?? job.failureReason ?? ""}</td>
              </tr>
            ))}
            {!page.loading && shown.length === 0 && <tr><td colSpan={7} className="empty">No jobs on this page.</td></tr>}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="pages">
        <button type="button" disabled={tokens.length === 1} onClick={() => setTokens(tokens.slice(0, -1))}>Previous</button>
        <span>page {tokens.length}</span>
        <button type="button" disabled={!page.data?.nextPageToken}
          onClick={() => setTokens([...tokens, page.data?.nextPageToken])}>Next</button>
        <button type="button" onClick={() => navigate("#/submit")}>Submit a job</button>
      </nav>
    </section>
  );
}
