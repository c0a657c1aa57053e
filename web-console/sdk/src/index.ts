export * from "./client.js";
export * from "./types.js";
export type { components, paths, operations } from "./generated/api.js";
