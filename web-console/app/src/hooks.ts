import { ApiError } from "@fleetjobs/sdk";
import { useEffect, useRef, useState } from "react";

export interface Polled<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  refresh: () => void;
}

/**
 * Calls {@code load} now and every {@code intervalMs} while the component is shown (0: once), keeping the last
 * answer; a call that fails keeps the previous data and says why. {@code deps} restart it.
 */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number, deps: unknown[]): Polled<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setLoading(true);
    const run = async () => {
      try {
        const value = await loadRef.current();
        if (!stopped) {
          setData(value);
          setError(undefined);
        }
      } catch (e) {
        if (!stopped) setError(e);
      } finally {
        if (!stopped) {
          setLoading(false);
          if (intervalMs > 0) timer = setTimeout(run, intervalMs);
        }
      }
    };
    void run();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [...deps, intervalMs, tick]);

  return { data, error, loading, refresh: () => setTick((t) => t + 1) };
}

/** The hash route: "#/jobs/abc?x=1" -> ["jobs", "abc"]. */
export function useHashRoute(): string[] {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const changed = () => setHash(window.location.hash);
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return hash.replace(/^#\/?/, "").split("?")[0].split("/").filter(Boolean).map(decodeURIComponent);
}

export interface LiveText {
  /** What came so far (its last {@code keep} characters); null until something came. */
  text: string | null;
  error: unknown;
}

/**
 * The text of a live stream ({@code follow}: pieces until it ends), kept to its last {@code keep} characters while the
 * component is shown. A stream that is not there yet (404, before anything came) is asked again each second; any
 * other failure is said and ends it. {@code deps} restart it.
 */
export function useLiveText(follow: (signal: AbortSignal) => AsyncGenerator<string>, deps: unknown[],
  keep = 256 * 1024): LiveText {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>();
  const followRef = useRef(follow);
  followRef.current = follow;

  useEffect(() => {
    const abort = new AbortController();
    let shown = "";
    setText(null);
    setError(undefined);
    const run = async () => {
      while (!abort.signal.aborted) {
        try {
          for await (const piece of followRef.current(abort.signal)) {
            shown = (shown + piece).slice(-keep);
            setText(shown);
          }
          return;
        } catch (e) {
          if (abort.signal.aborted) return;
          if (e instanceof ApiError && e.status === 404 && shown === "") {
            await new Promise((resolve) => setTimeout(resolve, 1000));
            continue;
          }
          setError(e);
          return;
        }
      }
    };
    void run();
    return () => abort.abort();
  }, deps);

  return { text, error };
}
