/**
 * Child process of the BullMQ queue suite: starts a redis-server and a queue, runs one job, stops Redis,
 * closes the queue, prints `closed`, and must then exit by itself (nothing of the queue left holding it).
 * Usage: node --import tsx close-exits.fixture.ts
 */
import { startRedisServer } from "../testing/redis-server.js";
import { createBullmqQueue } from "./bullmq-queue.js";

if (process.argv[1]?.endsWith("close-exits.fixture.ts")) {
  const redis = await startRedisServer();
  const queue = createBullmqQueue({ url: redis.url, prefix: "exit", log: () => {} });
  queue.handle("one", async () => {});
  await queue.start();
  await queue.add("one", "1", {});
  await queue.onIdle();
  await redis.stop();
  await queue.close();
  await redis.dispose();
  process.stdout.write("closed\n");
}
