import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCore } from "../core.js";
import { createManualClock, cryptoIds, sha256Hex } from "../deps.js";
import { createStores, type Stores } from "../storage/create-storage.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { ensureAdminKey, ensureDevCredentials } from "./dev-credentials.js";

if (!redisAvailable) console.warn(redisSkipReason("shared credentials on Redis"));

let server: RedisServer;
let counter = 0;
const opened: Stores[] = [];

/** `n` stores on one prefix, as `n` processes of a cluster would open it. */
function cluster(n: number): Stores[] {
  const prefix = `c${++counter}:`;
  const stores = Array.from({ length: n }, () => createStores("redis", { url: server.url, prefix, log: () => {} }));
  opened.push(...stores);
  return stores;
}

describe.skipIf(!redisAvailable)("credentials shared by every process on one Redis", () => {
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await Promise.all(opened.map((stores) => stores.dispose()));
    await server?.dispose();
  });

  it("processes starting at once make the same dev credentials, and the records they need exist once", async () => {
    const processes = cluster(4);
    const clock = createManualClock("2026-03-01T10:00:00.000Z");
    const all = await Promise.all(processes.map((stores) => ensureDevCredentials(stores.data, clock, cryptoIds)));
    for (const creds of all) expect(creds).toEqual(all[0]);
    const [first] = processes;
    expect(await first!.data.getItem(`tokens:${sha256Hex(all[0]!.token)}`)).toMatchObject({ account_id: "acct_dev" });
    expect(await first!.data.getItem(`apps:${all[0]!.application_id}`)).toMatchObject({ account_ids: ["acct_dev"] });
    // Only the winner's writes happened: one feed entry per record.
    const { changes } = await first!.changes!.read("0-0");
    expect(changes.map((change) => change.key.split(":")[0]).sort()).toEqual(["accounts", "apps", "meta", "tokens"]);
  });

  it("processes starting at once share one generated admin key; an explicit one still wins", async () => {
    const processes = cluster(4);
    const keys = await Promise.all(processes.map((stores) => ensureAdminKey(stores.data, cryptoIds)));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^lpadm_[\w-]{32}$/);
    expect(await ensureAdminKey(processes[0]!.data, cryptoIds, "explicit-key")).toBe("explicit-key");
    expect(await ensureAdminKey(processes[1]!.data, cryptoIds)).toBe(keys[0]);
  });

  it("cores starting at once sign list cursors with the same secret", async () => {
    const processes = cluster(3);
    const cores = await Promise.all(processes.map((stores) => createCore({ stores, clock: createManualClock(), publicUrl: () => "http://lp.test", sleep: async () => {} })));
    const secrets = await Promise.all(processes.map((stores) => stores.data.getItem<{ value: string }>("meta:cursor_key")));
    expect(new Set(secrets.map((s) => s!.value)).size).toBe(1);
    await Promise.all(cores.map((core) => core.close()));
  });
});
