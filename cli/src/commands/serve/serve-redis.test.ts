import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../../../core/src/testing/redis-server.js";
import { main } from "../../main.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { toOptions } from "./serve.js";

describe("serve --storage redis: flags", () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "lp-serve-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("parses --redis-url and --redis-prefix, and refuses malformed ones", () => {
    const base = { port: "0", storage: "redis", dataDir: ".lp" };
    expect(toOptions({ args: [], flags: { ...base, redisUrl: "redis://127.0.0.1:6379/2", redisPrefix: "team-a:" } })).toMatchObject({
      storage: "redis",
      redisUrl: "redis://127.0.0.1:6379/2",
      redisPrefix: "team-a:",
    });
    expect(() => toOptions({ args: [], flags: { ...base, redisUrl: "http://x" } })).toThrow(/--redis-url/);
    expect(() => toOptions({ args: [], flags: { ...base, redisPrefix: "a b" } })).toThrow(/--redis-prefix/);
  });

  it("without a URL, --storage redis is a usage error (exit 2) naming the flag and LP_REDIS_URL", async () => {
    const fake = createFakeIo({ cwd, env: {} });
    const startServer = async () => {
      throw new Error("must not start");
    };
    expect(await main(["serve", "--storage", "redis", "--port", "0"], fake.io, { startServer })).toBe(2);
    expect(fake.stderr).toMatch(/--redis-url.*LP_REDIS_URL/);
  });

  it("takes the URL from LP_REDIS_URL, the flag winning", async () => {
    let given: Record<string, unknown> = {};
    const startServer = async (options: Record<string, unknown>) => {
      given = options;
      throw new Error("not starting in this test");
    };
    await main(["serve", "--storage", "redis", "--port", "0"], createFakeIo({ cwd, env: { LP_REDIS_URL: "redis://10.0.0.1:6379/1" } }).io, { startServer });
    expect(given).toMatchObject({ storage: "redis", redisUrl: "redis://10.0.0.1:6379/1", redisPrefix: "lp:" });
    await main(["serve", "--storage", "redis", "--redis-url", "redis://h:1/0", "--port", "0"], createFakeIo({ cwd, env: { LP_REDIS_URL: "redis://10.0.0.1:6379/1" } }).io, { startServer });
    expect(given).toMatchObject({ redisUrl: "redis://h:1/0" });
  });
});

if (!redisAvailable) console.warn(redisSkipReason("lp serve on Redis"));

describe.skipIf(!redisAvailable)("serve --storage redis: running", () => {
  let redis: RedisServer;
  let cwd: string;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => redis?.dispose());
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), "lp-serve-"));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("two servers started together on one Redis and data dir share credentials, records and cursors; /healthz says redis", async () => {
    const one = createFakeIo({ cwd, env: {} });
    const two = createFakeIo({ cwd, env: {} });
    const args = ["serve", "--storage", "redis", "--redis-url", redis.url, "--redis-prefix", "cli:", "--port", "0", "--print-env", "--quiet"];
    // Started together, on the same --data-dir: no data-dir lock with Redis (the state is shared on purpose),
    // and both must print the same credentials although each found none when it started.
    const first = main(args, one.io);
    const second = main(args, two.io);
    await Promise.all([one.waitForStderr(/Ready at /), two.waitForStderr(/Ready at /)]);
    expect(one.stderr).toMatch(/storage: redis, redis:\/\/127\.0\.0\.1:\d+\/0 prefix cli:/);
    const env = (out: string) => Object.fromEntries(out.trim().split("\n").map((line) => line.split("=", 2)));
    const [a, b] = [env(one.stdout), env(two.stdout)];
    const health = await fetch(`${a.LP_API_URL}/healthz`);
    expect(await health.json()).toEqual({ status: "ok", storage: "redis" });
    // A product written through one process is read through the other.
    const created = await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.LP_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Shared mug", price: 12, product_type: "physical" }),
    });
    expect(created.status).toBe(201);
    const id = (await created.json()).data.id;
    const read = await fetch(`${b.LP_API_URL}/v1/accounts/${b.LP_ACCOUNT}/products/${id}`, { headers: { authorization: `Bearer ${b.LP_TOKEN}` } });
    expect(read.status).toBe(200);
    expect(JSON.parse(readFileSync(join(cwd, ".lp", "credentials.json"), "utf8")).token).toBe(a.LP_TOKEN);
    // Both sign list cursors with the one shared secret: a cursor from one is valid on the other.
    expect([a.LP_TOKEN, a.LP_ADMIN_KEY, a.LP_APP_SECRET]).toEqual([b.LP_TOKEN, b.LP_ADMIN_KEY, b.LP_APP_SECRET]);
    await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.LP_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Second mug", price: 13, product_type: "physical" }),
    });
    const page = await (await fetch(`${a.LP_API_URL}/v1/accounts/${a.LP_ACCOUNT}/products?per_page=1`, { headers: { authorization: `Bearer ${a.LP_TOKEN}` } })).json();
    expect(page.pagination.next_cursor).toEqual(expect.any(String));
    const next = await fetch(`${b.LP_API_URL}/v1/accounts/${b.LP_ACCOUNT}/products?per_page=1&cursor=${encodeURIComponent(page.pagination.next_cursor)}`, {
      headers: { authorization: `Bearer ${b.LP_TOKEN}` },
    });
    expect(next.status).toBe(200);
    one.shutdown();
    two.shutdown();
    expect(await first).toBe(0);
    expect(await second).toBe(0);
  });

  it("ends with a clear error when Redis cannot be reached", async () => {
    const fake = createFakeIo({ cwd, env: {} });
    const code = await main(["serve", "--storage", "redis", "--redis-url", "redis://127.0.0.1:1/0", "--port", "0", "--quiet"], fake.io);
    expect(code).toBe(1);
    expect(fake.stderr).toMatch(/Redis at redis:\/\/127\.0\.0\.1:1\/0: nothing accepts connections at 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  });
});
