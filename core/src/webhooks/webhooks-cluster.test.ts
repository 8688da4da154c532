import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { cryptoIds, systemClock, type Clock } from "../deps.js";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createStores, type Stores } from "../storage/create-storage.js";
import type { DeliveryRecord } from "./records.js";
import { endpointCreateSchema } from "./schemas.js";
import { QUEUE } from "./shared-queue.js";
import { clusterKeys } from "./webhook-keys.js";

/** A cluster member in its own process (see the fixture for its modes). */
const memberScript = fileURLToPath(new URL("./cluster-member.fixture.ts", import.meta.url));

if (!redisAvailable) console.warn(redisSkipReason("webhooks across two cores on one Redis"));

/** One request the receiver took: its Standard Webhooks headers and event. */
interface Arrival {
  path: string;
  /** The pid of the fixture process that sent it (`x-member`), empty from an in-process core. */
  member: string;
  webhookId: string;
  attempt: number;
  eventId: string;
}

/**
 * A real HTTP receiver: answers challenges, counts how many deliveries are in flight at once, and answers
 * each delivery with the status `reply` gives (after a short hold, so overlapping attempts would show).
 */
async function startReceiver() {
  const arrivals: Arrival[] = [];
  let inFlight = 0;
  let most = 0;
  let reply = (_arrival: Arrival) => 200;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; type: string; data: { challenge?: string } };
      if (body.type === "webhook.verification") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ challenge: body.data.challenge }));
      const arrival = { path: req.url ?? "", member: String(req.headers["x-member"] ?? ""), webhookId: String(req.headers["webhook-id"]), attempt: Number(req.headers["webhook-attempt"]), eventId: body.id };
      arrivals.push(arrival);
      inFlight += 1;
      most = Math.max(most, inFlight);
      const status = reply(arrival);
      // 0: the answer never comes (a receiver hanging while the sender dies).
      if (status === 0) return;
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(status).end("{}");
      }, 10);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    get most() {
      return most;
    },
    answer: (fn: (arrival: Arrival) => number) => void (reply = fn),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!redisAvailable)("webhooks across two cores on one Redis", () => {
  let server: RedisServer;
  const open: { close(): Promise<void> }[] = [];
  // Background failures of the engines: none is expected in these tests.
  const errors: string[] = [];
  beforeAll(async () => {
    server = await startRedisServer({ appendfsync: "everysec" });
  });
  afterEach(async () => {
    for (const item of open.splice(0).reverse()) await item.close();
    expect(errors.splice(0)).toEqual([]);
    const flush = new Redis(server.url);
    await flush.flushdb();
    flush.disconnect();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  /** A core on the shared Redis, as one `lp serve` process of a cluster. */
  async function boot(retrySchedule: number[] = [0, 100, 100, 100], stallMs = 5000, clock: Clock = systemClock) {
    const stores = createStores("redis", { url: server.url, prefix: "lp:" });
    const core = await createCore({ stores, clock, publicUrl: () => "http://lp.test", retrySchedule, webhooks: { cluster: { url: server.url, prefix: "lp:", stallMs }, onError: (what, error) => errors.push(`${what}: ${String(error)}`) } });
    const creds = await ensureDevCredentials(core.database, core.clock, cryptoIds);
    const handle = { core, creds, stores, close: async () => (await core.close(), await stores.dispose()) };
    open.push(handle);
    return handle;
  }
  /** The deliveries stored for an endpoint, read from Redis (a list index across processes is not this suite's subject). */
  async function stored(core: { stores: Stores }, endpointId: string): Promise<DeliveryRecord[]> {
    const keys = await core.stores.data.getKeys(`webhooks:deliveries:${endpointId}`);
    return (await Promise.all(keys.map((key) => core.stores.data.getItem<DeliveryRecord>(key)))).filter((d) => d !== null);
  }
  const product = (title: string) => ({ title, price: 5, product_type: "service" as const });

  it("holds concurrency_limit 1 across both, and delivers every event once with one webhook-id", async () => {
    const receiver = await startReceiver();
    open.push(receiver);
    const a = await boot();
    const b = await boot();
    const endpoint = await a.core.webhooks.endpoints.create(a.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"], concurrency_limit: 1 }));
    expect(endpoint.status).toBe("active");
    for (let i = 0; i < 12; i++) await (i % 2 ? a : b).core.products.create(a.creds.account_id, product(`Lamp ${i}`));
    await a.core.webhooks.onIdle();
    await b.core.webhooks.onIdle();
    expect(new Set(receiver.arrivals.map((r) => r.eventId)).size).toBe(12);
    expect(receiver.most).toBe(1);
    const idsPerEvent = new Map<string, Set<string>>();
    for (const r of receiver.arrivals) idsPerEvent.set(r.eventId, (idsPerEvent.get(r.eventId) ?? new Set()).add(r.webhookId));
    expect([...idsPerEvent.values()].every((ids) => ids.size === 1)).toBe(true);
  });

  it("delivers a retry one core scheduled from the other once the first is gone, with the same webhook-id", async () => {
    const receiver = await startReceiver();
    open.push(receiver);
    receiver.answer((arrival) => (arrival.attempt === 1 ? 500 : 200));
    // The retry is a minute away (±20% jitter), so the first core is surely gone before it is due (a short wait
    // could run out on a loaded machine, and the first core would deliver it itself). The test then makes it due:
    // the delayed job is promoted, and the second core's clock reads two minutes later. That core starts once the
    // first attempt is made (with its clock ahead it would plan the first attempt two minutes late).
    const a = await boot([0, 60_000]);
    const endpoint = await a.core.webhooks.endpoints.create(a.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"] }));
    await a.core.products.create(a.creds.account_id, product("Retried elsewhere"));
    await a.core.webhooks.onIdle();
    expect(receiver.arrivals).toHaveLength(1);
    const b = await boot([0, 60_000], 5000, { now: () => new Date(Date.now() + 120_000) });
    await a.close();
    open.splice(open.indexOf(a), 1);
    // Its start found the retry queued already: it added nothing, so what sends it is its worker, as a live member.
    await b.core.webhooks.onIdle();
    expect(receiver.arrivals).toHaveLength(1);

    const connection = new Redis(server.url, { maxRetriesPerRequest: null });
    const queue = new Queue(QUEUE, { connection, prefix: clusterKeys("lp:").bull });
    open.push({ close: async () => (await queue.close(), connection.disconnect()) });
    const delayed = await queue.getDelayed();
    expect(delayed.map((job) => job.data)).toEqual([{ kind: "attempt", id: receiver.arrivals[0].webhookId, endpoint_id: endpoint.id }]);
    await delayed[0].promote();
    const state = async () => JSON.stringify({ arrivals: receiver.arrivals, stored: await stored(b, endpoint.id) });
    await expect.poll(() => receiver.arrivals.length, { timeout: 10_000, interval: 50 }).toBe(2).catch(async (error: Error) => {
      throw new Error(`${error.message}; ${await state()}`);
    });
    const [first, second] = receiver.arrivals;
    expect(second).toEqual({ ...first, attempt: 2 });
    await b.core.webhooks.onIdle();
    const [delivery] = await stored(b, endpoint.id);
    expect(delivery).toMatchObject({ id: first.webhookId, status: "succeeded" });
  });

  it("shows a circuit opened by one core to the other, which then holds its deliveries back", async () => {
    const receiver = await startReceiver();
    open.push(receiver);
    receiver.answer(() => 500);
    const a = await boot([0]);
    const b = await boot([0]);
    const endpoint = await a.core.webhooks.endpoints.create(a.creds.application_id, endpointCreateSchema.parse({ url: receiver.url, events: ["product.created"], concurrency_limit: 1 }));
    for (let i = 0; i < 5; i++) await a.core.products.create(a.creds.account_id, product(`Failing ${i}`));
    await a.core.webhooks.onIdle();
    expect(receiver.arrivals).toHaveLength(5);
    const seen = await b.core.webhooks.endpoints.get(b.creds.application_id, endpoint.id);
    expect(seen.circuit).toMatchObject({ state: "open", consecutive_failures: 5 });

    await b.core.products.create(b.creds.account_id, product("Held back"));
    await b.core.webhooks.onIdle();
    expect(receiver.arrivals).toHaveLength(5);
    const held = (await stored(b, endpoint.id)).filter((d) => d.status === "pending");
    expect(held).toHaveLength(1);
    expect(held[0].next_attempt_at).toBe(seen.circuit.opens_until);
  });

  it("runs again on the live member the attempt a killed member had in flight (a stalled job), with the same webhook-id", async () => {
    const receiver = await startReceiver();
    open.push(receiver);
    // The first delivery never gets its answer: its sender is killed while it waits.
    receiver.answer((arrival) => (receiver.arrivals.indexOf(arrival) === 0 ? 0 : 200));
    const members = new Map<string, ChildProcess>();
    const startMember = async (mode: "member" | "one") => {
      const child = spawn(process.execPath, ["--import", "tsx", memberScript, server.url, receiver.url, mode], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      open.push({ close: async () => void (child.kill("SIGKILL"), await exited) });
      members.set(String(child.pid), child);
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    };
    // Both members run before the event exists: neither start-up recovery can be what sends it again.
    await startMember("member");
    await startMember("one");
    await expect.poll(() => receiver.arrivals.length, { timeout: 20_000, interval: 50 }).toBe(1);
    const [first] = receiver.arrivals;
    members.get(first.member)!.kill("SIGKILL");
    await expect.poll(() => receiver.arrivals.length, { timeout: 30_000, interval: 100 }).toBe(2);
    const second = receiver.arrivals[1];
    expect(second).toEqual({ ...first, member: second.member });
    expect(second.member).not.toBe(first.member);
    expect(members.has(second.member)).toBe(true);
  }, 60_000);

  it("finishes on a live member the fan-out a killed member had half done, each endpoint's delivery made once", async () => {
    const receiver = await startReceiver();
    open.push(receiver);
    const N = 130;
    const startMember = async (args: string[]) => {
      const child = spawn(process.execPath, ["--import", "tsx", memberScript, server.url, receiver.url, ...args], { stdio: ["ignore", "pipe", "inherit"] });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      open.push({ close: async () => void (child.kill("SIGKILL"), await exited) });
      return { child, exited, said: new Promise<void>((resolve) => child.stdout!.once("data", () => resolve())) };
    };
    const live = await startMember(["member"]);
    await live.said;
    // This one fans the event out, unless the live member's worker takes the job first; whichever process
    // runs it, the one that stores the 121st delivery is killed there.
    await startMember(["fanout", String(N)]);
    await expect.poll(() => new Set(receiver.arrivals.map((r) => r.path)).size, { timeout: 60_000, interval: 100 }).toBe(N);
    // Read straight from Redis: a core started here would run its own recovery.
    const stores = createStores("redis", { url: server.url, prefix: "lp:" });
    open.push({ close: () => stores.dispose() });
    await expect.poll(() => stores.data.getKeys("webhooks:outbox"), { timeout: 10_000, interval: 50 }).toEqual([]);
    expect(await stores.data.getKeys("webhooks:deliveries")).toHaveLength(N);
    expect(new Set(receiver.arrivals.map((r) => r.eventId)).size).toBe(1);
  }, 90_000);
});
