/**
 * core/src/storage/redis-modules.ts inside the single executable, which has no node_modules to resolve from:
 * the bundle (scripts/exe/bundle.mjs) takes this module in its place, and esbuild turns these `require()` calls
 * into calls of the bundled ioredis and BullMQ, whose bodies still run only at the first Redis connection.
 */

/** The ioredis module, loaded on first use. */
export const ioredis = (): typeof import("ioredis") => require("ioredis") as typeof import("ioredis");

/** The BullMQ module, loaded on first use. */
export const bullmq = (): typeof import("bullmq") => require("bullmq") as typeof import("bullmq");
