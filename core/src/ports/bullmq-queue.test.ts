import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { redisAvailable, redisSkipReason, startRedisServer, type RedisServer } from "../testing/redis-server.js";
import { createBullmqQueue, type BullmqQueueOptions } from "./bullmq-queue.js";
import type { JobContext, JobData, JobQueue } from "./queue.js";

const fixture = fileURLToPath(new URL("./bullmq-worker.fixture.ts", import.meta.url));
const exitFixture = fileURLToPath(new URL("./close-exits.fixture.ts", import.meta.url));

if (!redisAvailable) console.warn(redisSkipReason("the BullMQ queue suite"));

/** A promise with its resolve function outside. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The shared queue on a real redis-server: two queue instances on one Redis stand for two processes.
 */
describe.skipIf(!redisAvailable)("the BullMQ queue", () => {
  let redis: RedisServer;
  const queues: JobQueue[] = [];
  let prefix = 0;
  const logs: string[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  /** A queue instance ("a process"); instances made in one test share a prefix. */
  function open(options: Partial<BullmqQueueOptions> = {}): JobQueue {
    const queue = createBullmqQueue({ url: redis.url, prefix: `t${prefix}`, log: (line) => logs.push(line), ...options });
    queues.push(queue);
    return queue;
  }

  it("runs named jobs with their data in whichever process takes them; onIdle waits for the jobs this one added", async () => {
    prefix++;
    const ran: { by: string; data: JobData; context: JobContext }[] = [];
    // Every run waits until both instances hold one, so neither can take them all.
    const both = deferred();
    const make = (by: string) => {
      const queue = open();
      queue.handle("greet", async (data, context) => {
        ran.push({ by, data, context });
        if (new Set(ran.map((r) => r.by)).size === 2) both.resolve();
        await both.promise;
      });
      return queue;
    };
    const a = make("a");
    const b = make("b");
    await Promise.all([a.start(), b.start()]);
    for (let i = 0; i < 20; i++) await a.add("greet", `job${i}`, { n: String(i) });
    expect(a.pending).toBeGreaterThan(0);
    await a.onIdle();
    expect(a.pending).toBe(0);
    expect(ran.map((r) => r.data.n).sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(new Set(ran.map((r) => r.by))).toEqual(new Set(["a", "b"]));
    expect(ran.every((r) => !r.context.resumed)).toBe(true);
  });

  it("adds one job per id, and tells start-time recovery which records no live job holds", async () => {
    prefix++;
    const gate = deferred();
    let runs = 0;
    const now = { at: new Date("2026-05-01T00:01:00Z") };
    const queue = open({ now: () => now.at, graceMs: 30_000 });
    queue.handle("hold", async () => {
      runs++;
      await gate.promise;
    });
    await queue.start();
    await queue.add("hold", "one", {});
    await queue.add("hold", "one", {});
    const old = new Date("2026-05-01T00:00:00Z");
    expect(await queue.abandoned("hold", "one", old)).toBe(false);
    expect(await queue.abandoned("hold", "never-added", old)).toBe(true);
    // Too young: its request may not have added the job yet.
    expect(await queue.abandoned("hold", "never-added", new Date("2026-05-01T00:00:45Z"))).toBe(false);
    gate.resolve();
    await queue.onIdle();
    expect(runs).toBe(1);
    expect(await queue.abandoned("hold", "one", old)).toBe(true);
  });

  it("resumes, in a surviving process, a job whose process was killed holding it, telling the handler", { timeout: 30_000 }, async () => {
    prefix++;
    const survivor = open({ lockDurationMs: 1000, stalledIntervalMs: 300 });
    const resumed = deferred<{ data: JobData; context: JobContext }>();
    survivor.handle("work", async (data, context) => resumed.resolve({ data, context }));
    // The child adds the job and takes it before the survivor's worker runs.
    const child = spawn(process.execPath, ["--import", "tsx", fixture, redis.url, `t${prefix}`, "1000"], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    await new Promise<void>((resolve) => child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("started") && resolve()));
    await survivor.start();
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    await expect(resumed.promise).resolves.toMatchObject({ data: { id: "w1" }, context: { resumed: true } });
  });

  it("with Redis down, refuses new jobs at once and pauses; once Redis is back it runs what was waiting, without a crash", { timeout: 30_000 }, async () => {
    prefix++;
    const queue = open({ concurrency: 1 });
    const gate = deferred();
    const ran: string[] = [];
    const seen = new Map<string, ReturnType<typeof deferred<void>>>();
    const sawRun = (n: string) => seen.get(n) ?? seen.set(n, deferred()).get(n)!;
    queue.handle("hold", () => gate.promise);
    queue.handle("count", async ({ n }) => {
      ran.push(n);
      sawRun(n).resolve();
    });
    await queue.start();
    await queue.add("count", "1", { n: "1" });
    await sawRun("1").promise;
    // One slot: "2" waits behind "hold" while Redis goes away.
    await queue.add("hold", "h", {});
    await queue.add("count", "2", { n: "2" });
    logs.length = 0;
    await redis.stop();
    gate.resolve();
    // The request that asked for it answers 503.
    await expect(queue.add("count", "3", { n: "3" })).rejects.toMatchObject({ code: "service_unavailable" });
    await redis.restart();
    await sawRun("2").promise;
    await queue.add("count", "4", { n: "4" });
    await queue.onIdle();
    expect(ran).toEqual(["1", "2", "4"]);
    expect(logs.some((line) => line.includes("Redis unreachable"))).toBe(true);
    expect(logs.some((line) => line.includes("Redis reachable again"))).toBe(true);
  });

  it("closes when Redis is unreachable, after its own runs", { timeout: 30_000 }, async () => {
    prefix++;
    const queue = open();
    const gate = deferred();
    const started = deferred();
    let finished = false;
    queue.handle("hold", async () => {
      started.resolve();
      await gate.promise;
      finished = true;
    });
    await queue.start();
    await queue.add("hold", "h", {});
    await started.promise;
    await redis.stop();
    const closed = queue.close();
    gate.resolve();
    await closed;
    expect(finished).toBe(true);
    await redis.restart();
  });

  it("closed while Redis is unreachable, lets its process exit by itself", { timeout: 30_000 }, async () => {
    const child = spawn(process.execPath, ["--import", "tsx", exitFixture], { stdio: ["ignore", "pipe", "inherit"] });
    // A child that never exits is this test's failure; it must not outlive the run.
    onTestFinished(() => void child.kill("SIGKILL"));
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect({ code, out }).toEqual({ code: 0, out: "closed\n" });
  });
});
