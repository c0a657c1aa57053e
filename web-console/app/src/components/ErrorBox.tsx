import { message } from "../format";

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return <p className="error" role="alert">{message(error)}</p>;
}
