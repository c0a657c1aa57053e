import { createContext, useContext } from "react";
import type { FleetJobsClient } from "@fleetjobs/sdk";
import type { Session } from "./session";

export interface Console {
  client: FleetJobsClient;
  session: Session;
  navigate: (hash: string) => void;
  signOut: () => void;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const value = useContext(ConsoleContext);
  if (!value) {
    throw new Error("useConsole outside ConsoleContext");
  }
  return value;
}
