import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver } from "@lp/webhooks";
import { describe, expect, it } from "vitest";
import { spawnServe, type ServeProcess } from "../../server/src/testing/spawn-serve.js";
import { createCrashApi, pollUntil, type CrashApi } from "./crash-api.js";
import { checkLedger } from "./crash-checks.js";
import { createLedger, totalWrites } from "./crash-ledger.js";
import { startLoad } from "./crash-load.js";
import { scanDataDir } from "./data-dir-scan.js";
import { createRng } from "./seeded-rng.js";

/** 3 in `npm test`; `npm run test:crash` sets 20. */
const cycles = Number(process.env.LP_CRASH_CYCLES ?? "3");
const seed = Number(process.env.LP_CRASH_SEED ?? randomInt(1, 2 ** 31 - 1));
/** Short webhook retries, so deliveries cut by a kill are retried within the run. */
const RETRY_SCHEDULE = "0,200,500,1000,1000,2000,2000,2000";
const EVENTS = ["product.created", "product.updated", "page.created", "deployment.succeeded", "deployment.failed"];

/**
 * `lp serve` on its embedded SQLite store, under a mixed load, SIGKILLed after a random number of operations and
 * started again on the same data dir, `cycles` times. After each kill every record must parse; after
 * each restart nothing may be stored as still running and every acknowledged write must read back
 * intact; at the end every acknowledged product's `product.created` must have reached the receiver.
 */
describe(`crash loop (seed ${seed}, ${cycles} cycles)`, () => {
  it("keeps every acknowledged write, leaves no torn record or stuck work, and delivers every owed event", { timeout: 120_000 + cycles * 20_000 }, async () => {
    console.log(`crash loop: seed ${seed}, ${cycles} cycles; replay with LP_CRASH_SEED=${seed} LP_CRASH_CYCLES=${cycles} npx vitest run test/crash`);
    const rng = createRng(seed);
    const ledger = createLedger();
    const dataDir = mkdtempSync(join(tmpdir(), "crash-loop-"));
    const env = { LP_SERVE_STORAGE: "sqlite", LP_SERVE_DATA_DIR: dataDir, LP_SERVE_PORT: "0", LP_SERVE_RETRY_SCHEDULE: RETRY_SCHEDULE };
    // No secret yet: it answers the verification challenge, then learns the endpoint's secret.
    const receiver = await createReceiver();
    let server: ServeProcess | null = null;
    const connect = (s: ServeProcess): CrashApi => createCrashApi(s.env.LP_API_URL, s.env.LP_ACCOUNT, s.env.LP_TOKEN);
    let scanned = 0;
    let passed = false;
    try {
      server = await spawnServe(env);
      const basic = `Basic ${Buffer.from(`${server.env.LP_APP_ID}:${server.env.LP_APP_SECRET}`).toString("base64")}`;
      const endpoint = await connect(server).call("POST", "/v1/developer/webhook-endpoints", {
        authorization: basic,
        body: { url: `${receiver.url}/hooks`, events: EVENTS, concurrency_limit: 8 },
      });
      expect(endpoint.status).toBe(201);
      expect(endpoint.json.data).toMatchObject({ status: "active", verification: { outcome: "succeeded" } });
      receiver.setSecret(endpoint.json.data.secret);

      for (let cycle = 1; cycle <= cycles; cycle++) {
        const load = startLoad(connect(server), ledger, rng);
        // The random moment: after this many operations (0: right after the restart, mid-redelivery).
        const killAfter = rng.chance(0.1) ? 0 : rng.int(5, 200);
        await Promise.race([load.reached(killAfter), new Promise((_, reject) => setTimeout(() => reject(new Error("load stalled")), 60_000).unref())]);
        const stopping = load.stop();
        server.child.kill("SIGKILL");
        expect((await server.exit).signal).toBe("SIGKILL");
        const { operations } = await stopping;

        const dead = scanDataDir(dataDir);
        expect(dead.corrupt, "what the kill left torn").toEqual([]);

        server = await spawnServe(env);
        const api = connect(server);
        const settled = scanDataDir(dataDir);
        scanned += settled.files;
        expect(settled.corrupt).toEqual([]);
        expect(settled.processing, "jobs left processing with nothing due after the restart").toEqual([]);
        expect(settled.deploying, "deployments left deploying with nothing due after the restart").toEqual([]);
        const check = await checkLedger(api, ledger);
        expect(check.violations).toEqual([]);
        expect(ledger.unexpected, "answers a live server should not give").toEqual([]);
        console.log(
          `cycle ${cycle}/${cycles}: killed after ${operations} operations (asked ${killAfter}); ${settled.files} rows pass the checks; ` +
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
        `crash loop summary: seed ${seed}, ${cycles} kills; ${totalWrites(ledger)} acknowledged writes ${JSON.stringify(ledger.acknowledgedWrites)}; ` +
          `requests: ${ledger.tally.acknowledged} acknowledged, ${ledger.tally.interrupted} interrupted, ${ledger.tally.refused} refused; ` +
          `${scanned} rows checked after restarts; product.created owed ${owed.length}, delivered ${owed.length - missing.length}, missing ${missing.length}; ` +
          `receiver: ${receiver.events.length} distinct events, ${receiver.deliveries.length} requests, ${duplicates} duplicate deliveries, ${rejected.length} bad signatures`,
      );
      expect(missing, "product.created events never delivered").toEqual([]);
      expect(rejected).toEqual([]);

      server.child.kill("SIGTERM");
      expect((await server.exit).code).toBe(0);
      server = null;
      passed = true;
    } finally {
      if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
      await receiver.close();
      // A failed run keeps its data dir to look at.
      if (passed) rmSync(dataDir, { recursive: true, force: true });
      else console.log(`crash loop: data dir kept at ${dataDir}`);
    }
  });
});
