/** The user's key, kept in this tab's session storage only (never a cookie): gone when the tab closes. */
export interface Session {
  key: string;
  admin: boolean;
  tenant?: string;
}

const STORAGE_KEY = "fleetjobs.session";

export function loadSession(storage: Storage = sessionStorage): Session | null {
  try {
    const text = storage.getItem(STORAGE_KEY);
    return text ? (JSON.parse(text) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null, storage: Storage = sessionStorage): void {
  if (session) {
    storage.setItem(STORAGE_KEY, JSON.stringify(session));
  } else {
    storage.removeItem(STORAGE_KEY);
  }
}
