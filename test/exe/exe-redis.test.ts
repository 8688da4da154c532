import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import type { LpProcess } from "../../cli/src/e2e/processes.js";
import { createExeSandbox, exeBuilt, servedEnv, warnIfMissing } from "./exe-harness.js";

warnIfMissing("the single executable on Redis (test/exe/exe-redis.test.ts)");
if (exeBuilt && !redisAvailable) console.warn(redisSkipReason("the single executable on Redis (test/exe/exe-redis.test.ts)"));

/**
 * `lp serve --storage redis` from the executable, which carries ioredis and BullMQ in its bundle (the npm
 * package resolves them from node_modules): records in Redis, a generation job through the shared queue.
 */
describe.skipIf(!exeBuilt || !redisAvailable)("lp as a single executable, on Redis", () => {
  let box: ReturnType<typeof createExeSandbox>;
  let redis: RedisServer;
  let serve: LpProcess;
  let env: Record<string, string>;
  beforeAll(async () => {
    box = createExeSandbox();
    redis = await startRedisServer();
    serve = box.spawn(["serve", "--storage", "redis", "--redis-url", redis.url, "--port", "0", "--data-dir", "data", "--print-env", "--quiet"]);
    await serve.waitFor("stderr", /^Ready at /m);
    env = await servedEnv(serve);
  }, 60_000);
  afterAll(async () => {
    if (serve?.child.exitCode === null) {
      serve.child.kill("SIGTERM");
      await serve.exited;
    }
    await redis?.dispose();
    box?.remove();
  });

  it("stores in Redis, generates a page through the queue, and exits 0 on SIGTERM", async () => {
    expect(await (await fetch(`${env.LP_API_URL}/healthz`)).json()).toMatchObject({ status: "ok", storage: "redis" });
    const product = await box.run(["products", "create", "--title", "Ferry Pass", "--price", "12", "--type", "service", "--json"], env);
    expect(product.code, product.stderr).toBe(0);
    const page = await box.run(["pages", "create", "--product-id", product.json().id, "--wait", "--json"], env);
    expect(page.code, page.stderr).toBe(0);
    expect(page.json()).toMatchObject({ status: "draft", product: { title: "Ferry Pass" } });
    serve.child.kill("SIGTERM");
    expect(await serve.exited, serve.stderr).toBe(0);
    expect(serve.stderr).not.toMatch(/warning|error/i);
  }, 60_000);
});
