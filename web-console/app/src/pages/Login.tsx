import { ApiError, FleetJobsClient } from "@fleetjobs/sdk";
import { useState, type FormEvent } from "react";
import { message } from "../format";
import type { Session } from "../session";

/**
 * Paste an API key: it is tried (a list of one job), and an admin key is told apart by whether the tenants can be
 * listed with it.
 */
export function Login({ onLogin, makeClient }: { onLogin: (s: Session) => void; makeClient: (key: string) => FleetJobsClient }) {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError("paste an API key");
      return;
    }
    setBusy(true);
    setError(undefined);
    const client = makeClient(trimmed);
    try {
      const page = await client.list({ limit: 1 });
      let admin = false;
      try {
        await client.tenants();
        admin = true;
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 403)) throw e;
      }
      onLogin({ key: trimmed, admin, tenant: page.items[0]?.tenant });
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? "this key is not valid (or was revoked)" : message(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="login">
      <h1>FleetJobs</h1>
      <form onSubmit={submit} aria-label="sign in">
        <label htmlFor="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" autoFocus value={key}
          onChange={(e) => setKey(e.target.value)} aria-describedby="key-help" />
        <p id="key-help" className="hint">Kept in this tab only (session storage), sent as <code>Authorization: Bearer</code>.</p>
        {error && <p className="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>{busy ? "Checking…" : "Sign in"}</button>
      </form>
    </main>
  );
}
