import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createStores } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import type { LockLease } from "./lock.js";
import { createRedisLock } from "./redis-lock.js";

if (!redisAvailable) console.warn(redisSkipReason("the Redis lock"));

const holderFixture = fileURLToPath(new URL("./redis-lock-holder.fixture.ts", import.meta.url));

/** A promise with its resolver, to hold a lock until the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.skipIf(!redisAvailable)("Redis lock", () => {
  let server: RedisServer;
  let raw: Redis;
  const opened: Array<{ close(): Promise<void> }> = [];
  // Each lock is its own pair of connections, as a separate process would have.
  const lock = (options: { leaseMs?: number; waitMs?: number } = {}) => {
    const l = createRedisLock({ url: server.url, prefix: "t:", log: () => {}, ...options });
    opened.push(l);
    return l;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    raw = new Redis(server.url, { maxRetriesPerRequest: 1 });
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((l) => l.close()));
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.dispose();
  });

  it("lets one holder at a time in across two clients, and every caller in eventually", async () => {
    const [a, b] = [lock(), lock()];
    let inside = 0;
    let most = 0;
    await raw.set("t:counter", "0");
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a : b).withLock("counter", async () => {
          most = Math.max(most, ++inside);
          // Read, yield to the other client, write: lost updates unless the lock excludes.
          const value = Number(await raw.get("t:counter"));
          await raw.ping();
          await raw.set("t:counter", String(value + 1));
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(await raw.get("t:counter")).toBe("40");
    expect(await raw.exists("t:lock:counter")).toBe(0);
  });

  it("hands out fencing tokens that grow with every grant", async () => {
    const [a, b] = [lock(), lock()];
    const tokens: number[] = [];
    for (let i = 0; i < 4; i++) tokens.push(await (i % 2 ? a : b).withLock("fenced", (lease) => lease.token));
    expect([...tokens].sort((x, y) => x - y)).toEqual(tokens);
    expect(new Set(tokens).size).toBe(4);
  });

  it("by default waits out the whole lease a killed holder left on a key, however long the lease", async () => {
    // A lease longer than the 10 s wait the lock used to default to: the key a dead holder left (set as a grant
    // sets it) frees itself only after 10.5 s, and the waiter must still get it rather than a 503.
    const leaseMs = 10_500;
    await raw.set("t:lock:long", "1", "PX", leaseMs);
    const started = Date.now();
    const token = await lock({ leaseMs }).withLock("long", (lease) => lease.token);
    expect(token).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(leaseMs - 200);
  }, 30_000);

  it("frees the key of a holder that stopped renewing when its lease ends, and tells that holder", async () => {
    const dying = lock({ leaseMs: 300 });
    const survivor = lock({ leaseMs: 5_000, waitMs: 10_000 });
    const held = gate();
    const release = gate();
    let first!: LockLease;
    const holding = dying.withLock("job", async (lease) => {
      first = lease;
      held.open();
      await release.opened;
    });
    await held.opened;
    // The first process dies: no more renewals, no release. Its fn is still "running" from its point of view.
    await dying.close();
    expect(await raw.exists("t:lock:job")).toBe(1);
    const second = await survivor.withLock("job", async (lease) => {
      // The dead holder learns it lost the key, both from a check and from its signal.
      await expect(first.assertHeld()).rejects.toMatchObject({ code: "service_unavailable" });
      if (!first.signal.aborted) await once(first.signal, "abort");
      await lease.assertHeld();
      return lease.token;
    });
    expect(second).toBeGreaterThan(first.token);
    release.open();
    await holding;
  });

  it("frees the key of a holder process killed with SIGKILL once its lease ends", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", holderFixture, server.url, "t:", "500"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = once(child, "exit");
    try {
      const token = await new Promise<number>((resolve, reject) => {
        let out = "";
        child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk;
          const held = /held (\d+)/.exec(out);
          if (held) resolve(Number(held[1]));
        });
        child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
      });
      child.kill("SIGKILL");
      await exited;
      // Nobody released it: the key is still there, and frees itself when the dead holder's lease ends.
      expect(await raw.get("t:lock:job")).toBe(String(token));
      const next = await lock({ waitMs: 10_000 }).withLock("job", (lease) => lease.token);
      expect(next).toBeGreaterThan(token);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("fences store writes: a holder whose lease ended cannot write over the next holder's change", async () => {
    const stores = createStores("redis", { url: server.url, prefix: "t:" });
    opened.push({ close: () => stores.dispose() });
    const dying = lock({ leaseMs: 300 });
    const survivor = lock({ leaseMs: 5_000 });
    const key = "acct:a:things:one";
    const held = gate();
    const late = gate();
    let first!: LockLease;
    const holding = dying.withLock("thing", async (lease) => {
      first = lease;
      held.open();
      await late.opened;
      // Written after its lease ended and another holder wrote: refused, nothing stored, nothing on the feed.
      await expect(stores.batch([{ key, value: { by: "first" } }], lease.fence)).rejects.toMatchObject({ code: "service_unavailable" });
    });
    await held.opened;
    // While the lease holds, a fenced batch goes through.
    await stores.batch([{ key, value: { by: "first, in time" } }], first.fence);
    await dying.close();
    const before = await stores.changes!.head();
    await survivor.withLock("thing", (lease) => stores.batch([{ key, value: { by: "second" } }], lease.fence));
    // A fenced batch writes what an unfenced one does: the record, its listing, its feed entry.
    expect(await stores.data.getKeys("acct:a:things")).toEqual([key]);
    expect((await stores.changes!.read(before)).changes).toEqual([{ key, value: { by: "second" } }]);
    const cursor = await stores.changes!.head();
    late.open();
    await holding;
    expect(await stores.data.getItem(key)).toEqual({ by: "second" });
    expect((await stores.changes!.read(cursor)).changes).toEqual([]);
  });

  it("keeps a slow holder's lease alive past its first term while it runs", async () => {
    // Renewed every 200 ms: a loaded machine may stall the event loop a while without the lease running out.
    const a = lock({ leaseMs: 600 });
    const b = lock({ leaseMs: 600, waitMs: 150 });
    const entered = gate();
    const finish = gate();
    const holding = a.withLock("slow", async (lease) => {
      entered.open();
      await finish.opened;
      await lease.assertHeld();
      return lease.signal.aborted;
    });
    await entered.opened;
    // b keeps trying and giving up with a 503 until three lease terms have passed: renewals keep the key.
    const until = Date.now() + 3 * 600;
    while (Date.now() < until) await expect(b.withLock("slow", () => "got it")).rejects.toMatchObject({ code: "service_unavailable" });
    finish.open();
    expect(await holding).toBe(false);
    expect(await b.withLock("slow", () => "got it")).toBe("got it");
  });

  it("asks Redis once per grant when the callers of one process wait for the same key", async () => {
    const one = lock();
    const evals = async () => {
      const stats = await raw.info("commandstats");
      return [...stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    };
    await one.withLock("herd", () => undefined); // loads the scripts
    const before = await evals();
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        one.withLock("herd", async () => {
          await raw.ping();
          order.push(i);
        }),
      ),
    );
    // Each grant is one acquire and one release: no caller retried against a key held by its own process.
    expect(await evals()).toBe(before + 40);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it("gives a caller queued behind a holder of its own process service_unavailable once its wait is over", async () => {
    const one = lock({ waitMs: 300 });
    const held = gate();
    const holding = one.withLock("queued", () => held.opened);
    const started = Date.now();
    await expect(one.withLock("queued", () => "never")).rejects.toMatchObject({ code: "service_unavailable" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    held.open();
    await holding;
    // The queue goes on after a caller that gave up.
    expect(await one.withLock("queued", () => "next")).toBe("next");
  });

  it("answers service_unavailable, not a hang, when Redis is unreachable", async () => {
    const down = createRedisLock({ url: "redis://127.0.0.1:1/0", log: () => {} });
    opened.push(down);
    await expect(down.withLock("k", () => 1)).rejects.toMatchObject({ code: "service_unavailable" });
  });
});
