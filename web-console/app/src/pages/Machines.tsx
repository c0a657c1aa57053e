import type { Machine, MachineOperation } from "@fleetjobs/sdk";
import { useState } from "react";
import { Bar } from "../components/Bar";
import { ErrorBox } from "../components/ErrorBox";
import { StateBadge } from "../components/StateBadge";
import { useConsole } from "../context";
import { age } from "../format";
import { usePoll } from "../hooks";

/** The fleet (an admin's view): what each machine has and holds, its status and why, its GPUs, its last heartbeat. */
export function Machines() {
  const { client, session } = useConsole();
  const machines = usePoll(() => client.machines(), 3000, []);
  const [reason, setReason] = useState("from the console");
  const [error, setError] = useState<unknown>();

  if (!session.admin) {
    return <section><h2>Machines</h2><p className="muted">Machines are shown to admins only.</p></section>;
  }

  async function operate(id: string, op: MachineOperation) {
    setError(undefined);
    try {
      await client.operateMachine(id, op, reason.trim() || "from the console");
      machines.refresh();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="machines-title">
      <h2 id="machines-title">Machines</h2>
      <label className="inline">Reason for drain, cordon, uncordon <input value={reason} onChange={(e) => setReason(e.target.value)} /></label>
      <ErrorBox error={error ?? machines.error} />
      <div className="cards">
        {(machines.data ?? []).map((m) => <MachineCard key={m.id} machine={m} onOperate={(op) => operate(m.id, op)} />)}
      </div>
      {machines.data?.length === 0 && <p className="muted">No machine has joined.</p>}
    </section>
  );
}

export function MachineCard({ machine: m, onOperate }: { machine: Machine; onOperate?: (op: MachineOperation) => void }) {
  const cap = m.capacity ?? {};
  const used = m.allocated ?? {};
  return (
    <article className="card" aria-label={`machine ${m.id}`} data-machine={m.id}>
      <h3>{m.id} <StateBadge state={m.status} /></h3>
      {m.statusReason && <p className="reason">{m.statusReason}</p>}
      <p className="muted">{m.region} · heartbeat {age(m.lastHeartbeatAt)} ago{m.gpuType ? ` · ${m.gpuType}` : ""}</p>
      <p className={m.isolation === "sandbox" && !m.isolationGaps?.length ? "muted" : "reason"}>{isolation(m)}</p>
      <Bar label="CPU" used={used.cpu ?? 0} total={cap.cpu ?? 0} />
      <Bar label="Memory" used={used.memoryMb ?? 0} total={cap.memoryMb ?? 0} unit=" MB" />
      {(cap.gpuCount ?? 0) > 0 && <Bar label="GPUs" used={used.gpuCount ?? 0} total={cap.gpuCount ?? 0} />}
      {m.maxLiveAttempts != null && <Bar label="Attempts" used={m.liveAttempts ?? 0} total={m.maxLiveAttempts} />}
      {m.gpus && m.gpus.length > 0 && (
        <ul className="gpus">
          {m.gpus.map((g) => <li key={g.index}>GPU {g.index}: {g.model ?? "unknown"}{g.memoryMb ? `, ${g.memoryMb} MB` : ""}</li>)}
        </ul>
      )}
      {onOperate && (
        <div className="actions">
          <button type="button" onClick={() => onOperate("drain")} disabled={m.status === "DRAINING"}>Drain</button>
          <button type="button" onClick={() => onOperate("cordon")} disabled={m.status === "CORDONED"}>Cordon</button>
          <button type="button" onClick={() => onOperate("uncordon")} disabled={m.status === "READY"}>Uncordon</button>
        </div>
      )}
    </article>
  );
}

/** How the machine holds its jobs apart, and what its sandbox does not hold there, in words. */
export function isolation(m: Machine): string {
  if (m.isolation !== "sandbox") return "no sandbox: jobs run as the agent's user and see the machine";
  if (m.isolationGaps === undefined) return "sandboxed";
  if (m.isolationGaps.length === 0) return "sandboxed, all of it held";
  return `sandboxed, not held here: ${m.isolationGaps.join(", ")}`;
}
