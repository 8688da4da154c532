/**
 * Child process of the Redis lock suite: takes key `job` on the given Redis, prints its fencing token, and
 * holds the key (renewing its lease) until it is killed.
 * Usage: node --import tsx redis-lock-holder.fixture.ts <redis-url> <prefix> <lease-ms>
 */
import { createRedisLock } from "./redis-lock.js";

if (process.argv[1]?.endsWith("redis-lock-holder.fixture.ts")) {
  const [url, prefix, leaseMs] = process.argv.slice(2);
  const lock = createRedisLock({ url: url!, prefix, leaseMs: Number(leaseMs), log: () => {} });
  await lock.withLock("job", async (lease) => {
    process.stdout.write(`held ${lease.token}\n`);
    await new Promise<void>(() => {});
  });
}
