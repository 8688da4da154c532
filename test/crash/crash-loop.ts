import { randomInt } from "node:crypto";
import { createReceiver } from "@lp/webhooks";
import { expect } from "vitest";
import { spawnServe, type ServeProcess } from "../../server/src/testing/spawn-serve.js";
import { createCrashApi, pollUntil, type CrashApi } from "./crash-api.js";
import { checkLedger } from "./crash-checks.js";
import { createLedger, totalWrites } from "./crash-ledger.js";
import { startLoad } from "./crash-load.js";
import type { CrashStore } from "./crash-stores.js";
import { createRng, type Rng } from "./seeded-rng.js";

/** Kills per run: 3 in `npm test`; `npm run test:crash` sets 20. */
export const crashCycles = Number(process.env.LP_CRASH_CYCLES ?? "3");
/** The run's seed: `LP_CRASH_SEED` replays one; otherwise a fresh one, printed. */
export const crashSeed = Number(process.env.LP_CRASH_SEED ?? randomInt(1, 2 ** 31 - 1));
/** The test's timeout: a bound on a stuck run, not a measure of a slow one. */
export const crashTimeoutMs = 120_000 + crashCycles * 20_000;

/** Short webhook retries, so deliveries cut by a kill are retried within the run. */
const RETRY_SCHEDULE = "0,200,500,1000,1000,2000,2000,2000";
const EVENTS = ["product.created", "product.updated", "page.created", "deployment.succeeded", "deployment.failed"];

/** A client that sends each request to one of the live processes, drawn by `rng`. */
function toSpreadApi(apis: () => CrashApi[], rng: Rng): CrashApi {
  const pick = () => rng.pick(apis());
  return {
    get base() {
      return pick().base;
    },
    call: (method, path, init) => pick().call(method, path, init),
  };
}

/**
 * The crash loop on `store`: its `store.processes` `lp serve` processes under a mixed load spread over them; each
 * cycle one of them (seeded choice) is SIGKILLed after a seeded number of operations and started again on the same
 * store while the others keep serving. After each kill the store's database must pass the engine's checks; after
 * each restart nothing may be stored as still running with nothing due, and every acknowledged write must read back
 * intact (work the killed process held is taken over: at its start on SQLite, once its claims lapse on PostgreSQL);
 * at the end every acknowledged product's `product.created` must have reached the receiver, and every process stops
 * on SIGTERM with exit 0. A failed run keeps the store's data and prints where it is.
 */
export async function runCrashLoop(store: CrashStore, options: { seed: number; cycles: number; file: string }): Promise<void> {
  const { seed, cycles } = options;
  const label = `crash loop on ${store.name}`;
  console.log(`${label}: seed ${seed}, ${cycles} cycles, ${store.processes} process(es); replay with LP_CRASH_SEED=${seed} LP_CRASH_CYCLES=${cycles} npx vitest run ${options.file}`);
  const rng = createRng(seed);
  // The kills (when, and which process) and the choice of process for each request draw from streams of their own:
  // the load's draws follow the order requests finish in, which timing decides, and would shift every later kill.
  const kills = createRng(seed ^ 0x5bd1e995);
  const spread = createRng(seed ^ 0x27d4eb2f);
  const ledger = createLedger();
  const env = { ...store.env, LP_SERVE_PORT: "0", LP_SERVE_RETRY_SCHEDULE: RETRY_SCHEDULE };
  // No secret yet: it answers the verification challenge, then learns the endpoint's secret.
  const receiver = await createReceiver();
  const servers: ServeProcess[] = [];
  const connect = (s: ServeProcess): CrashApi => createCrashApi(s.env.LP_API_URL, s.env.LP_ACCOUNT, s.env.LP_TOKEN);
  const api = toSpreadApi(() => servers.map(connect), spread);
  let scanned = 0;
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  let passed = false;
  try {
    // One after another: the first one migrates the schema and writes the dev credentials the others find.
    for (let i = 0; i < store.processes; i++) servers.push(await spawnServe(env));
    for (const s of servers) expect(s.env.LP_TOKEN, "every process serves the same dev account").toBe(servers[0].env.LP_TOKEN);
    const basic = `Basic ${Buffer.from(`${servers[0].env.LP_APP_ID}:${servers[0].env.LP_APP_SECRET}`).toString("base64")}`;
    const endpoint = await connect(servers[0]).call("POST", "/v1/developer/webhook-endpoints", {
      authorization: basic,
      body: { url: `${receiver.url}/hooks`, events: EVENTS, concurrency_limit: 8 },
    });
    expect(endpoint.status).toBe(201);
    expect(endpoint.json.data).toMatchObject({ status: "active", verification: { outcome: "succeeded" } });
    receiver.setSecret(endpoint.json.data.secret);

    for (let cycle = 1; cycle <= cycles; cycle++) {
      const load = startLoad(api, ledger, rng);
      // The random moment: after this many operations (0: right after the restart, mid-redelivery).
      const killAfter = kills.chance(0.1) ? 0 : kills.int(5, 200);
      const victim = kills.int(0, store.processes - 1);
      await Promise.race([load.reached(killAfter), new Promise((_, reject) => setTimeout(() => reject(new Error("load stalled")), 60_000).unref())]);
      const stopping = load.stop();
      const killed = servers[victim];
      killed.child.kill("SIGKILL");
      expect((await killed.exit).signal).toBe("SIGKILL");
      const { operations } = await stopping;

      const dead = await store.scan();
      expect(dead.corrupt, "what the kill left torn").toEqual([]);

      servers[victim] = await spawnServe(env);
      const settled = await store.scan();
      scanned += settled.rows;
      expect(settled.corrupt).toEqual([]);
      expect(settled.processing, "jobs left processing with nothing due after the restart").toEqual([]);
      expect(settled.deploying, "deployments left deploying with nothing due after the restart").toEqual([]);
      const check = await checkLedger(api, ledger);
      expect(check.violations).toEqual([]);
      expect(ledger.unexpected, "answers a live server should not give").toEqual([]);
      console.log(
        `${label} cycle ${cycle}/${cycles} (${elapsed()}): killed process ${victim} after ${operations} operations (asked ${killAfter}), ${dead.claimed} claims held at the kill; ${settled.rows} rows pass the checks; ` +
          `checked ${check.checked.products} products, ${check.checked.jobs} jobs, ${check.checked.pages} pages, ` +
          `${check.checked.deployments} deployments, ${check.checked.sites} sites`,
      );
    }

    const owed = [...ledger.products.keys()];
    const deliveredIds = () => new Set(receiver.events.filter((e) => e.type === "product.created").map((e) => (e.data as { id: string }).id));
    const missingNow = () => owed.filter((id) => !deliveredIds().has(id));
    await pollUntil("every owed product.created", 60_000, async () => (missingNow().length === 0 ? true : undefined)).catch(() => {});
    const missing = missingNow();
    const rejected = receiver.deliveries.filter((d) => d.verification && !d.verification.ok);
    const duplicates = receiver.deliveries.filter((d) => d.duplicate).length;
    console.log(
      `${label} summary (${elapsed()}): seed ${seed}, ${cycles} kills; ${totalWrites(ledger)} acknowledged writes ${JSON.stringify(ledger.acknowledgedWrites)}; ` +
        `requests: ${ledger.tally.acknowledged} acknowledged, ${ledger.tally.interrupted} interrupted, ${ledger.tally.refused} refused; ` +
        `${scanned} rows checked after restarts; product.created owed ${owed.length}, delivered ${owed.length - missing.length}, missing ${missing.length}; ` +
        `receiver: ${receiver.events.length} distinct events, ${receiver.deliveries.length} requests, ${duplicates} duplicate deliveries, ${rejected.length} bad signatures`,
    );
    expect(missing, "product.created events never delivered").toEqual([]);
    expect(rejected).toEqual([]);

    for (const s of servers) s.child.kill("SIGTERM");
    for (const s of servers) expect((await s.exit).code).toBe(0);
    passed = true;
  } finally {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    await Promise.all(servers.map((s) => s.exit));
    await receiver.close();
    const kept = await store.dispose(!passed);
    if (kept) console.log(`${label}: ${kept} kept`);
  }
}
