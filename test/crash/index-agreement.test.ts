import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStores, type Stores } from "../../core/src/storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../../core/src/testing/redis-server.js";
import { spawnServe, type ServeProcess } from "../../server/src/testing/spawn-serve.js";
import { createCrashApi, type CrashApi } from "./crash-api.js";
import { storedRecords } from "./data-dir-scan.js";
import { createRng, type Rng } from "./seeded-rng.js";

if (!redisAvailable) console.warn(redisSkipReason("the list index agreement test on Redis"));

const seed = Number(process.env.LP_CRASH_SEED ?? randomInt(1, 2 ** 31 - 1));
/** More than the registry's threshold (500), so the products index is persisted on Redis, and more than SQLite's first block. */
const SEEDED = 560;
const CYCLES = 2;

interface StoredProduct {
  id: string;
  created_at: string;
  title: string;
  deleted_at?: string | null;
}

/** The products a fresh process lists, every page, newest first. */
async function listed(api: CrashApi): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const r = await api.call("GET", `products?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(r.status).toBe(200);
    ids.push(...(r.json.data as { id: string }[]).map((p) => p.id));
    cursor = r.json.pagination.next_cursor;
    if (!r.json.pagination.has_more) return ids;
  }
  throw new Error("more than 100 pages");
}

/** What is stored: every product record that is not deleted, in the list's order (created_at, then id, newest first). */
function expected(records: StoredProduct[]): string[] {
  return records
    .filter((r) => !r.deleted_at)
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
    .map((r) => r.id);
}

/** Creates, renames and deletes products from 4 workers until stopped (answers lost to the kill are fine). */
function writeLoad(api: CrashApi, rng: Rng, known: string[]) {
  let stopped = false;
  let n = 0;
  const worker = async () => {
    while (!stopped) {
      try {
        const roll = rng.int(0, 9);
        if (roll < 5 || known.length === 0) {
          const r = await api.call("POST", "products", { body: { title: `Agreement ${seed}-${++n}`, price: 10, product_type: "physical", images: [] } });
          if (r.status === 201) known.push(r.json.data.id);
        } else if (roll < 8) {
          await api.call("PATCH", `products/${rng.pick(known)}`, { body: { title: `Renamed ${seed}-${++n}` } });
        } else {
          await api.call("DELETE", `products/${rng.pick(known)}`);
        }
      } catch {
        return; // killed
      }
    }
  };
  const workers = Array.from({ length: 4 }, worker);
  return { stop: () => ((stopped = true), Promise.all(workers)) };
}

/**
 * A real `lp serve` with a large products collection, killed with SIGKILL in the middle of creates, renames
 * and deletes, then started again: the fresh process must list exactly the products that are stored, and so
 * must the one after a clean stop (on Redis starting from the persisted index, on SQLite from the database).
 */
async function agreementRun(env: Record<string, string>, stored: () => Promise<StoredProduct[]>, snapshotExists?: () => Promise<boolean>) {
  const rng = createRng(seed);
  let server: ServeProcess | null = await spawnServe(env);
  const connect = (s: ServeProcess) => createCrashApi(s.env.LP_API_URL, s.env.LP_ACCOUNT, s.env.LP_TOKEN);
  const known: string[] = [];
  try {
    let api = connect(server);
    for (let i = 0; i < SEEDED; i += 20) {
      const created = await Promise.all(Array.from({ length: 20 }, (_, k) => api.call("POST", "products", { body: { title: `Seeded ${i + k}`, price: 5, product_type: "service", images: [] } })));
      for (const r of created) known.push(r.json.data.id);
    }
    expect(await listed(api)).toEqual(expected(await stored()));
    const restart = async (signal: NodeJS.Signals) => {
      server!.child.kill(signal);
      expect((await server!.exit)[signal === "SIGKILL" ? "signal" : "code"]).toBe(signal === "SIGKILL" ? "SIGKILL" : 0);
      server = null;
      server = await spawnServe(env);
      api = connect(server);
    };
    await restart("SIGTERM");
    if (snapshotExists) expect(await snapshotExists(), "the clean stop persisted the products index").toBe(true);
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // From the persisted index: the same list as the records.
      expect(await listed(api)).toEqual(expected(await stored()));
      const load = writeLoad(api, rng, known);
      await new Promise((resolve) => setTimeout(resolve, rng.int(50, 400)));
      server.child.kill("SIGKILL");
      await load.stop();
      await restart("SIGKILL");
      expect(await listed(api), `cycle ${cycle}: after the kill`).toEqual(expected(await stored()));
      await restart("SIGTERM");
    }
    expect(await listed(api)).toEqual(expected(await stored()));
  } finally {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      (server as ServeProcess).child.kill("SIGKILL");
      await (server as ServeProcess).exit;
    }
  }
}

describe(`list index and records agree after kill -9 (seed ${seed}; replay with LP_CRASH_SEED)`, () => {
  it("on SQLite", { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "index-agreement-"));
    try {
      const stored = async () =>
        storedRecords(dataDir)
          .filter(([key]) => /^acct:[^:]+:products:[^:]+$/.test(key))
          .map(([, text]) => JSON.parse(text) as StoredProduct);
      await agreementRun({ LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0" }, stored);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe.skipIf(!redisAvailable)("on Redis", () => {
    let redis: RedisServer;
    let stores: Stores;
    beforeAll(async () => {
      redis = await startRedisServer();
      stores = createStores("redis", { url: redis.url, prefix: "agree:" });
    });
    afterAll(async () => {
      await stores?.dispose();
      await redis?.dispose();
    });

    it("on Redis", { timeout: 180_000 }, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "index-agreement-"));
      const productsPrefix = async () => {
        const [account] = (await stores.data.getKeys("acct")).map((k) => k.split(":")[1]).filter(Boolean);
        return `acct:${account}:products`;
      };
      const stored = async () => {
        const prefix = await productsPrefix();
        const keys = (await stores.data.getKeys(prefix)).filter((k) => k.split(":").length === 4);
        return Promise.all(keys.map(async (k) => (await stores.data.getItem(k)) as StoredProduct));
      };
      const snapshotExists = async () => (await stores.indexSnapshots!.read(await productsPrefix())) !== null;
      try {
        await agreementRun({ LP_SERVE_STORAGE: "redis", LP_SERVE_REDIS_URL: redis.url, LP_SERVE_REDIS_PREFIX: "agree:", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0" }, stored, snapshotExists);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
});
