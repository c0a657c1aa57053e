import { ApiError, type FieldError, type JobSpec } from "@fleetjobs/sdk";
import { useState, type FormEvent, type ReactNode } from "react";
import { useConsole } from "../context";
import { message, parseLabels } from "../format";

interface Form {
  name: string;
  queue: string;
  priority: string;
  cpu: string;
  memoryMb: string;
  gpuCount: string;
  gpuType: string;
  command: string;
  labels: string;
  placementLabels: string;
  maxAttempts: string;
  replicas: string;
  preemptible: boolean;
}

/** The fields typed as text. */
type TextField = Exclude<keyof Form, "preemptible">;

const EMPTY: Form = {
  name: "", queue: "default", priority: "500", cpu: "1", memoryMb: "256", gpuCount: "0", gpuType: "",
  command: "echo hello", labels: "", placementLabels: "", maxAttempts: "3", replicas: "1", preemptible: true,
};

/** The spec as the API takes it; numbers left as typed (the API says what is wrong with them). */
export function toSpec(form: Form): JobSpec {
  const num = (s: string) => (s.trim() === "" ? undefined : Number(s));
  const placement = parseLabels(form.placementLabels);
  return {
    name: form.name.trim(),
    queue: form.queue.trim() || undefined,
    priority: num(form.priority),
    resources: { cpu: num(form.cpu) as number, memoryMb: num(form.memoryMb) as number, gpuCount: num(form.gpuCount), gpuType: form.gpuType.trim() || undefined },
    placement: Object.keys(placement).length ? { labels: placement } : undefined,
    execution: { command: form.command.trim() ? ["sh", "-c", form.command] : [] },
    retry: form.maxAttempts.trim() ? { maxAttempts: num(form.maxAttempts) } : undefined,
    labels: parseLabels(form.labels),
    replicas: num(form.replicas),
    preemptible: form.preemptible ? undefined : false,
  };
}

/** Where each field of the API's errors is shown (others go above the button). */
const FIELD_OF: Record<string, TextField> = {
  name: "name", queue: "queue", priority: "priority", "resources.cpu": "cpu", "resources.memoryMb": "memoryMb",
  "resources.gpuCount": "gpuCount", "resources.gpuType": "gpuType", "execution.command": "command", labels: "labels",
  "placement.labels": "placementLabels", "retry.maxAttempts": "maxAttempts", replicas: "replicas",
};

export function Submit() {
  const { client, navigate } = useConsole();
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setErrors([]);
    setProblem(undefined);
    try {
      const job = await client.submit(toSpec(form), crypto.randomUUID());
      navigate(`#/jobs/${job.id}`);
    } catch (e) {
      if (e instanceof ApiError && e.problem?.errors?.length) {
        setErrors(e.problem.errors);
      }
      setProblem(message(e));
    } finally {
      setBusy(false);
    }
  }

  const errorOf = (field: TextField) => errors.filter((e) => FIELD_OF[e.field] === field || (FIELD_OF[e.field] === undefined && e.field.startsWith(field))).map((e) => e.message).join("; ");
  const unplaced = errors.filter((e) => !FIELD_OF[e.field] && !Object.keys(EMPTY).some((f) => e.field.startsWith(f)));

  const field = (key: TextField, label: string, extra: ReactNode = null, type = "text") => {
    const error = errorOf(key);
    return (
      <div className={`field${error ? " invalid" : ""}`}>
        <label htmlFor={`f-${key}`}>{label}</label>
        <input id={`f-${key}`} name={key} type={type} value={form[key]} step={type === "number" ? "any" : undefined}
          aria-invalid={error ? true : undefined} aria-describedby={error ? `e-${key}` : undefined}
          onChange={(e) => setForm({ ...form, [key]: e.target.value })} />
        {extra}
        {error && <span id={`e-${key}`} className="field-error" data-field={key}>{error}</span>}
      </div>
    );
  };

  return (
    <section aria-labelledby="submit-title">
      <h2 id="submit-title">Submit a job</h2>
      <form className="grid-form" onSubmit={submit} noValidate>
        {field("name", "Name")}
        {field("queue", "Queue")}
        {field("priority", "Priority (0–1000)", null, "number")}
        {field("cpu", "CPU cores", null, "number")}
        {field("memoryMb", "Memory (MB)", null, "number")}
        {field("gpuCount", "GPUs", null, "number")}
        {field("gpuType", "GPU type (A100|H100)")}
        {field("command", "Command (run with sh -c)")}
        {field("labels", "Labels (k=v, k=v)")}
        {field("placementLabels", "Machine labels required (k=v)")}
        {field("maxAttempts", "Max attempts", null, "number")}
        {field("replicas", "Replicas (more than 1: a gang, placed all at once)", null, "number")}
        <div className="field">
          <label>
            <input type="checkbox" name="preemptible" checked={form.preemptible}
              onChange={(e) => setForm({ ...form, preemptible: e.target.checked })} />
            {" "}Preemptible (a job of higher priority may end it to make room)
          </label>
        </div>
        {unplaced.map((e) => <p key={e.field} className="field-error">{e.field}: {e.message}</p>)}
        {problem && <p className="error" role="alert">{problem}</p>}
        <div className="actions"><button type="submit" disabled={busy}>{busy ? "Submitting…" : "Submit"}</button></div>
      </form>
    </section>
  );
}
