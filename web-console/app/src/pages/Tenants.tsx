import type { ApiKeyInfo, Tenant } from "@fleetjobs/sdk";
import { useState, type FormEvent } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { Holding } from "../components/Holding";
import { useConsole } from "../context";
import { usePoll } from "../hooks";

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

/** Tenants (admins): create one, change its weight and quota, issue and revoke its API keys. */
export function Tenants() {
  const { client, session } = useConsole();
  const tenants = usePoll(() => client.tenants(), 0, []);
  const [name, setName] = useState("");
  const [weight, setWeight] = useState("1");
  const [error, setError] = useState<unknown>();

  if (!session.admin) {
    return <section><h2>Tenants</h2><p className="muted">Tenants are shown to admins only.</p></section>;
  }

  async function create(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      await client.createTenant({ name: name.trim(), weight: num(weight) as number });
      setName("");
      tenants.refresh();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="tenants-title">
      <h2 id="tenants-title">Tenants</h2>
      <form className="filters" onSubmit={create} aria-label="create a tenant">
        <label>Name <input value={name} onChange={(e) => setName(e.target.value)} required /></label>
        <label>Weight <input type="number" min="1" value={weight} onChange={(e) => setWeight(e.target.value)} /></label>
        <button type="submit">Create tenant</button>
      </form>
      <ErrorBox error={error ?? tenants.error} />
      {(tenants.data ?? []).map((t) => <TenantCard key={t.id} tenant={t} onChanged={tenants.refresh} />)}
    </section>
  );
}

function TenantCard({ tenant, onChanged }: { tenant: Tenant; onChanged: () => void }) {
  const { client } = useConsole();
  const [weight, setWeight] = useState(String(tenant.weight));
  const [cpu, setCpu] = useState(tenant.quota?.cpu?.toString() ?? "");
  const [memoryMb, setMemoryMb] = useState(tenant.quota?.memoryMb?.toString() ?? "");
  const [gpuCount, setGpuCount] = useState(tenant.quota?.gpuCount?.toString() ?? "");
  const [maxLiveJobs, setMaxLiveJobs] = useState(tenant.quota?.maxLiveJobs?.toString() ?? "");
  const [maxPriority, setMaxPriority] = useState(tenant.quota?.maxPriority?.toString() ?? "");
  const [issued, setIssued] = useState<{ id: string; key: string }[]>([]);
  const [error, setError] = useState<unknown>();
  const keys = usePoll<ApiKeyInfo[] | null>(() => client.apiKeys(tenant.name), 0, [tenant.name, issued.length]);

  async function act(action: () => Promise<unknown>) {
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(e);
    }
  }

  const save = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      // a quota given replaces the old one whole: every limit goes, the ones left empty as none
      await client.updateTenant(tenant.name, { weight: num(weight), quota: { cpu: num(cpu), memoryMb: num(memoryMb),
        gpuCount: num(gpuCount), maxLiveJobs: num(maxLiveJobs), maxPriority: num(maxPriority) } });
      onChanged();
    });
  };
  const issue = () => act(async () => {
    const key = await client.issueApiKey(tenant.name);
    setIssued([...issued, key]);
  });
  const revoke = (id: string) => act(async () => {
    await client.revokeApiKey(tenant.name, id);
    setIssued(issued.filter((k) => k.id !== id));
    keys.refresh();
  });

  return (
    <article className="card wide" aria-label={`tenant ${tenant.name}`} data-tenant={tenant.name}>
      <h3>{tenant.name}</h3>
      <Holding tenant={tenant} />
      <form className="filters" onSubmit={save} aria-label={`weight and quota of ${tenant.name}`}>
        <label>Weight <input type="number" min="1" value={weight} onChange={(e) => setWeight(e.target.value)} /></label>
        <label>CPU quota <input type="number" value={cpu} onChange={(e) => setCpu(e.target.value)} placeholder="none" /></label>
        <label>Memory quota (MB) <input type="number" value={memoryMb} onChange={(e) => setMemoryMb(e.target.value)} placeholder="none" /></label>
        <label>GPU quota <input type="number" value={gpuCount} onChange={(e) => setGpuCount(e.target.value)} placeholder="none" /></label>
        <label>Live jobs at most <input type="number" min="0" value={maxLiveJobs} onChange={(e) => setMaxLiveJobs(e.target.value)} placeholder="none" /></label>
        <label>Highest priority <input type="number" min="0" max="1000" value={maxPriority} onChange={(e) => setMaxPriority(e.target.value)} placeholder="none" /></label>
        <button type="submit">Save</button>
      </form>
      <div className="actions"><button type="button" onClick={issue}>Issue API key</button></div>
      {issued.map((k) => (
        <p key={k.id} className="issued">New key <code data-testid="issued-key">{k.key}</code> (shown once; id {k.id})
          {" "}<button type="button" className="danger" onClick={() => revoke(k.id)}>Revoke {k.id}</button></p>
      ))}
      {keys.data && (
        <ul className="keys" aria-label={`API keys of ${tenant.name}`}>
          {keys.data.map((k) => (
            <li key={k.id}>{k.id}{k.createdAt ? ` · created ${k.createdAt}` : ""}{k.lastUsedAt ? ` · last used ${k.lastUsedAt}` : ""}
              {k.revokedAt ? " · revoked" : <> <button type="button" className="danger" onClick={() => revoke(k.id)}>Revoke {k.id}</button></>}</li>
          ))}
        </ul>
      )}
      <ErrorBox error={error} />
    </article>
  );
}
