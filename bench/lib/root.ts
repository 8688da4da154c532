import { fileURLToPath } from "node:url";

/** The repository root: children run from here so their imports and tsconfig resolve. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
