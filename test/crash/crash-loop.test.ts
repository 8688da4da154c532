import { describe, it } from "vitest";
import { crashCycles, crashSeed, crashTimeoutMs, runCrashLoop } from "./crash-loop.js";
import { createSqliteStore } from "./crash-stores.js";

/**
 * `lp serve` on its embedded SQLite store, under a mixed load, SIGKILLed after a random number of operations and
 * started again on the same data dir (`runCrashLoop`). The same loop on PostgreSQL is crash-loop-postgres.test.ts.
 */
describe(`crash loop on SQLite (seed ${crashSeed}, ${crashCycles} cycles)`, () => {
  it("keeps every acknowledged write, leaves no torn record or stuck work, and delivers every owed event", { timeout: crashTimeoutMs }, async () => {
    await runCrashLoop(createSqliteStore(), { seed: crashSeed, cycles: crashCycles, file: "test/crash/crash-loop.test.ts" });
  });
});
