import { FleetJobsClient } from "@fleetjobs/sdk";
import { useMemo, useState } from "react";
import { ConsoleContext, type Console } from "./context";
import { useHashRoute } from "./hooks";
import { Events } from "./pages/Events";
import { JobPage } from "./pages/JobPage";
import { Jobs } from "./pages/Jobs";
import { Login } from "./pages/Login";
import { Machines } from "./pages/Machines";
import { Overview } from "./pages/Overview";
import { Pending } from "./pages/Pending";
import { Submit } from "./pages/Submit";
import { Tenants } from "./pages/Tenants";
import { loadSession, saveSession, type Session } from "./session";

const PAGES = [
  { path: "overview", title: "Overview" },
  { path: "jobs", title: "Jobs" },
  { path: "submit", title: "Submit" },
  { path: "pending", title: "Why pending" },
  { path: "events", title: "Live events" },
  { path: "machines", title: "Machines", admin: true },
  { path: "tenants", title: "Tenants", admin: true },
];

/** A client that carries the key, and that signs the user out when the key stops working (401). */
export function clientFor(key: string, onUnauthorized: () => void, baseUrl = ""): FleetJobsClient {
  return new FleetJobsClient({
    baseUrl,
    token: key,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
}

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  const route = useHashRoute();

  const signOut = () => {
    saveSession(null);
    setSession(null);
  };
  const value = useMemo<Console | null>(() => session && {
    client: clientFor(session.key, signOut),
    session,
    navigate: (hash) => { window.location.hash = hash; },
    signOut,
  }, [session]);

  if (!session || !value) {
    return <Login makeClient={(key) => new FleetJobsClient({ token: key })}
      onLogin={(s) => { saveSession(s); setSession(s); if (!window.location.hash) window.location.hash = "#/jobs"; }} />;
  }
  const [page = "jobs", id] = route;

  return (
    <ConsoleContext.Provider value={value}>
      <a className="skip" href="#main">Skip to content</a>
      <header>
        <h1><a href="#/overview">FleetJobs</a></h1>
        <nav aria-label="pages">
          {PAGES.filter((p) => !p.admin || session.admin).map((p) => (
            <a key={p.path} href={`#/${p.path}`} aria-current={page === p.path ? "page" : undefined}>{p.title}</a>
          ))}
        </nav>
        <span className="who">{session.admin ? "admin" : session.tenant ?? "signed in"}</span>
        <button type="button" onClick={signOut}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1}>
        {page === "jobs" && id ? <JobPage id={id} /> : <Page page={page} />}
      </main>
    </ConsoleContext.Provider>
  );
}

function Page({ page }: { page: string }) {
  switch (page) {
    case "overview": return <Overview />;
    case "submit": return <Submit />;
    case "pending": return <Pending />;
    case "events": return <Events />;
    case "machines": return <Machines />;
    case "tenants": return <Tenants />;
    default: return <Jobs />;
  }
}

