import type { Tenant } from "@fleetjobs/sdk";
import { Bar } from "./Bar";

/**
 * What a tenant's jobs hold on machines now against its quota: a bar where the quota limits it, the amount alone
 * where it does not.
 */
export function Holding({ tenant }: { tenant: Tenant }) {
  const usage = tenant.usage;
  if (!usage) return null;
  const rows: [string, number, number | undefined, string][] = [
    ["CPU", Number(usage.cpu), tenant.quota?.cpu === undefined ? undefined : Number(tenant.quota.cpu), " cores"],
    ["Memory", usage.memoryMb, tenant.quota?.memoryMb ?? undefined, " MB"],
    ["GPUs", usage.gpuCount, tenant.quota?.gpuCount ?? undefined, ""],
  ];
  return (
    <div className="holding" aria-label={`what the jobs of ${tenant.name} hold`}>
      <p data-testid="held-jobs">{usage.jobs} {usage.jobs === 1 ? "job" : "jobs"} placed or running, weight {tenant.weight}</p>
      {rows.map(([label, used, quota, unit]) => quota !== undefined && quota !== null
        ? <Bar key={label} label={`${label} of the quota`} used={used} total={quota} unit={unit} />
        : <p key={label} className="muted">{label}: {used}{unit} (no quota)</p>)}
    </div>
  );
}
