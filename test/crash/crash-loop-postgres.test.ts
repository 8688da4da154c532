import { describe, it } from "vitest";
import { postgresAvailable, postgresSkipReason } from "../../core/src/testing/postgres-server.js";
import { crashCycles, crashSeed, crashTimeoutMs, runCrashLoop } from "./crash-loop.js";
import { createPostgresStore } from "./crash-stores.js";

if (!postgresAvailable) console.warn(postgresSkipReason("the crash loop on PostgreSQL"));

/**
 * The crash loop (`runCrashLoop`) on two `lp serve --storage postgres` processes sharing one database: the load goes
 * to both, each cycle SIGKILLs one of them and starts it again while the other keeps serving, and the work the
 * killed one held is taken over once its claims lapse.
 */
describe.skipIf(!postgresAvailable)(`crash loop on PostgreSQL, two processes (seed ${crashSeed}, ${crashCycles} cycles)`, () => {
  it("keeps every acknowledged write, leaves no torn record or stuck work, and delivers every owed event", { timeout: crashTimeoutMs }, async () => {
    await runCrashLoop(await createPostgresStore(), { seed: crashSeed, cycles: crashCycles, file: "test/crash/crash-loop-postgres.test.ts" });
  });
});
