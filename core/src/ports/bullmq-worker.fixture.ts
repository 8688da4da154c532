/**
 * Child process of the BullMQ queue suite: a queue instance on the given Redis that adds job `work w1`,
 * takes it, prints `started`, and holds it until it is killed.
 * Usage: node --import tsx bullmq-worker.fixture.ts <redis-url> <prefix> <lock-duration-ms>
 */
import { createBullmqQueue } from "./bullmq-queue.js";

if (process.argv[1]?.endsWith("bullmq-worker.fixture.ts")) {
  const [url, prefix, lockMs] = process.argv.slice(2);
  const queue = createBullmqQueue({ url, prefix, lockDurationMs: Number(lockMs), stalledIntervalMs: Number(lockMs) });
  queue.handle("work", async () => {
    process.stdout.write("started\n");
    await new Promise<void>(() => {});
  });
  await queue.start();
  await queue.add("work", "w1", { id: "w1" });
}
