import { createRequire } from "node:module";

// ioredis and BullMQ cost about 100 ms to load, which `lp serve` on SQLite or memory (and `lp --version`) must
// not pay. Both ship CommonJS, so they are required at the first Redis connection instead of imported at
// start; the types still come from static `import type`.
const load = createRequire(import.meta.url);

/** The ioredis module, loaded on first use. */
export const ioredis = (): typeof import("ioredis") => load("ioredis") as typeof import("ioredis");

/** The BullMQ module, loaded on first use. */
export const bullmq = (): typeof import("bullmq") => load("bullmq") as typeof import("bullmq");
