/** Used of total as a horizontal bar with its numbers, for people and for screen readers. */
export function Bar({ label, used, total, unit = "" }: { label: string; used: number; total: number; unit?: string }) {
  const percent = total > 0 ? Math.min(100, Math.round((used / total) * 100)) : 0;
  const text = `${label}: ${fmt(used)} of ${fmt(total)}${unit} (${percent}%)`;
  return (
    <div className="bar" title={text}>
      <span className="bar-label">{label}</span>
      <span className="bar-track" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={total} aria-valuenow={used} aria-valuetext={text}>
        <span className={`bar-fill${percent >= 90 ? " full" : ""}`} style={{ width: `${percent}%` }} />
      </span>
      <span className="bar-value">{fmt(used)} / {fmt(total)}{unit}</span>
    </div>
  );
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
