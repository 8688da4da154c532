import { describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason } from "../../core/src/testing/redis-server.js";
import { killSlotHolder } from "./slot-recovery.js";
import { useCluster } from "./use-cluster.js";

if (!redisAvailable) console.warn(redisSkipReason("the cluster slot-recovery test"));

/**
 * A process SIGKILLed while it holds every concurrency slot of an endpoint (its receiver holding the
 * attempts open): the slots are freed and the survivor delivers every owed event, the killed process's
 * attempts included. How soon is a figure of the bench (`npm run bench -- --only=redis-cluster`); here the
 * wait is bounded by the 10 s slot lease promise plus the time a survivor takes over a stalled attempt.
 */
describe.skipIf(!redisAvailable)("a killed holder of an endpoint's concurrency slots", () => {
  const cluster = useCluster({ processes: 1 });

  it("frees its slots, and the survivor delivers every owed event", { timeout: 90_000 }, async () => {
    const seen = await killSlotHolder(cluster, 4, 20_000);
    expect(seen.freedMs, "the killed process's slots were never freed").toBeGreaterThanOrEqual(0);
    expect(seen.delivered).toBe(seen.owed);
  });
});
