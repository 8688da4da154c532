/**
 * Webhook engine figures: delivery throughput to a local receiver at concurrency 4 against bare fetch and
 * node:http loops at the same concurrency, this process's CPU per delivery, the same on the embedded store
 * (SQLite: each event and its deliveries one transaction, a process's transactions one at a time, its
 * statements run on this thread), and the latency from an API call that emits an event to the first attempt
 * reaching the receiver. Self-contained: its own server, receiver and storage, 127.0.0.1. `bench/profile-webhooks.ts`
 * profiles the engine's run.
 */
import { spawn } from "node:child_process";
import { Agent as HttpAgent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endpointCreateSchema } from "@lp/core";
import { generateSecret, sign } from "../packages/webhooks/src/index.js";
import { startServer, type RunningServer } from "../server/src/serve.js";
import type { BenchRow } from "./lib/bench-row.js";


const CONCURRENCY = 4;
/** Callers emitting at once in the sqlite throughput row. */
const EMITTERS = 32;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** A receiver that answers 200 at once (the challenge too) and reports each arrival. */
async function startSink(onRequest: (body: string) => void = () => {}): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      onRequest(body);
      const parsed = JSON.parse(body) as { type?: string; data?: { challenge?: string } };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(parsed.type === "webhook.verification" ? JSON.stringify({ challenge: parsed.data?.challenge }) : "{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

async function withServer<T>(storage: "memory" | "sqlite", work: (server: RunningServer) => Promise<T>): Promise<T> {
  const dir = storage === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-bench-webhooks-")) : undefined;
  const server = await startServer({ storage, dataDir: dir, port: 0, log: null, admin: false });
  try {
    return await work(server);
  } finally {
    await server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** The throughput receiver: a separate process (like `lp listen`), so it does not share the event loop. */
const SINK_SOURCE = `
const { createServer } = require("node:http");
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let reply = "{}";
    try { const p = JSON.parse(Buffer.concat(chunks).toString()); if (p.type === "webhook.verification") reply = JSON.stringify({ challenge: p.data.challenge }); } catch {}
    res.writeHead(200, { "content-type": "application/json" }).end(reply);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

async function startChildSink(): Promise<{ url: string; close(): void }> {
  const child = spawn(process.execPath, ["-e", SINK_SOURCE], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => void child.kill() };
}

/** A throughput run: items per second of wall time, and this process's CPU milliseconds per item. */
interface Throughput {
  rate: number;
  cpuMs: number;
}

function measure(count: number, started: number, cpu: NodeJS.CpuUsage): Throughput {
  const used = process.cpuUsage(cpu);
  return { rate: count / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / count };
}

/** Deliveries per second through the engine (emit → signed POST → stored outcome), events emitted by `emitters` callers at once. */
export async function engineThroughput(storage: "memory" | "sqlite", count: number, emitters = 1): Promise<Throughput> {
  const sink = await startChildSink();
  try {
    return await withServer(storage, async ({ core, credentials }) => {
      await core.webhooks.endpoints.create(credentials.application_id, endpointCreateSchema.parse({ url: sink.url, events: ["product.created"], concurrency_limit: CONCURRENCY }));
      const data = { id: "bench", title: "Bench lamp", price: 10 };
      const cpu = process.cpuUsage();
      const started = performance.now();
      let next = 0;
      const emitter = async () => {
        while (next++ < count) await core.webhooks.sink.emit({ type: "product.created", account_id: credentials.account_id, data });
      };
      await Promise.all(Array.from({ length: emitters }, emitter));
      // Every delivery's record is committed (durable) once the engine is idle: a SQLite write resolves then.
      await core.onIdle();
      return measure(count, started, cpu);
    });
  } finally {
    sink.close();
  }
}

/** One event body and its signed headers, computed once: what both bare loops send on every request. */
function bareRequest() {
  const body = JSON.stringify({
    id: "evt_0000019a3c2b1f00000001a1b2c3d4e5",
    type: "product.created",
    timestamp: new Date().toISOString(),
    account_id: "acct_dev",
    environment: "production",
    data: { id: "bench", title: "Bench lamp", price: 10 },
  });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "lp-webhooks/1",
    ...sign({ id: "dlv_0000019a3c2b1f000001a1b2c3d4e5f6", timestamp: new Date(), body, secrets: generateSecret() }),
    "webhook-event-type": "product.created",
    "webhook-attempt": "1",
  };
  return { body, headers };
}

/** `count` sends of `send`, `CONCURRENCY` at a time, against a fresh receiver process. */
async function bareLoop(count: number, send: (url: string) => Promise<void>): Promise<Throughput> {
  const sink = await startChildSink();
  try {
    let next = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next++ < count) await send(sink.url);
      }),
    );
    return measure(count, started, cpu);
  } finally {
    sink.close();
  }
}

/**
 * The same requests with plain fetch, `CONCURRENCY` at a time: the target's anchor. The engine sends with
 * node:http (core/src/webhooks/http-poster.ts), so the loop below is the anchor of what the engine adds.
 */
export async function bareFetchThroughput(count: number): Promise<Throughput> {
  const { body, headers } = bareRequest();
  return bareLoop(count, async (url) => {
    const res = await fetch(url, { method: "POST", body, headers, redirect: "manual" });
    await res.text();
  });
}

/** The same requests with node:http on kept-alive sockets, the engine's client, reading each answer whole. */
export async function bareHttpThroughput(count: number): Promise<Throughput> {
  const { body, headers } = bareRequest();
  const agent = new HttpAgent({ keepAlive: true });
  const sized = { ...headers, "content-length": String(Buffer.byteLength(body)) };
  try {
    return await bareLoop(
      count,
      (url) =>
        new Promise<void>((resolve, reject) => {
          const req = httpRequest(url, { method: "POST", headers: sized, agent }, (res) => {
            res.on("data", () => {});
            res.on("end", resolve);
            res.on("error", reject);
          });
          req.on("error", reject);
          req.end(body);
        }),
    );
  } finally {
    agent.destroy();
  }
}

/** Milliseconds from starting `POST /products` over HTTP to the product.created attempt arriving. */
async function emitToAttempt(storage: "memory" | "sqlite", rounds: number): Promise<number[]> {
  let arrived: (() => void) | null = null;
  const sink = await startSink((body) => {
    if (body.includes('"product.created"')) arrived?.();
  });
  try {
    return await withServer(storage, async ({ core, credentials, url }) => {
      await core.webhooks.endpoints.create(credentials.application_id, endpointCreateSchema.parse({ url: sink.url, events: ["product.created"] }));
      const latencies: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const reached = new Promise<void>((resolve) => (arrived = resolve));
        const started = performance.now();
        const res = await fetch(`${url}/v1/accounts/${credentials.account_id}/products`, {
          method: "POST",
          headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json" },
          body: JSON.stringify({ title: `Lamp ${i}`, price: 10, product_type: "physical" }),
        });
        await res.text();
        await reached;
        latencies.push(performance.now() - started);
        await core.onIdle();
      }
      return latencies;
    });
  } finally {
    sink.server.close();
  }
}

/** Runs the webhook scenarios; `quick` shortens them. */
export async function benchWebhooks(options: { quick?: boolean } = {}): Promise<BenchRow[]> {
  const count = options.quick ? 400 : 2000;
  const rounds = options.quick ? 40 : 200;
  // Warm up sockets, JIT and the engine's code paths, then interleave the two sides and take each
  // side's median run, so neither pays for running first or for a noisy moment on a small machine.
  await bareFetchThroughput(count);
  await bareHttpThroughput(count);
  await engineThroughput("memory", count);
  await engineThroughput("memory", count);
  const bareRuns: Throughput[] = [];
  const httpRuns: Throughput[] = [];
  const engineRuns: Throughput[] = [];
  for (let run = 0; run < 3; run++) {
    bareRuns.push(await bareFetchThroughput(count));
    httpRuns.push(await bareHttpThroughput(count));
    engineRuns.push(await engineThroughput("memory", count));
  }
  const bare = percentile(bareRuns.map((r) => r.rate), 50);
  const http = percentile(httpRuns.map((r) => r.rate), 50);
  const engine = percentile(engineRuns.map((r) => r.rate), 50);
  const bareCpu = percentile(bareRuns.map((r) => r.cpuMs), 50);
  const engineCpu = percentile(engineRuns.map((r) => r.cpuMs), 50);
  // sqlite: the median of three runs (its figure swings with the disk, which other work on the machine shares).
  // Events come from EMITTERS callers at once, as from that many API requests in flight, each event its own
  // transaction. The row after it emits one event at a time (each waits for its transaction's commit).
  const sqliteRuns: Throughput[] = [];
  const sqliteOneRuns: Throughput[] = [];
  for (let run = 0; run < 3; run++) {
    sqliteRuns.push(await engineThroughput("sqlite", count * 2, EMITTERS));
    sqliteOneRuns.push(await engineThroughput("sqlite", Math.round(count / 4)));
  }
  const engineSqlite = percentile(sqliteRuns.map((r) => r.rate), 50);
  const engineOne = percentile(sqliteOneRuns.map((r) => r.rate), 50);
  const httpRatio = engine / http;
  const memory = await emitToAttempt("memory", rounds);
  const onSqlite = await emitToAttempt("sqlite", Math.round(rounds / 2));
  const ratio = engine / bare;
  const p50 = percentile(memory, 50);
  return [
    { name: "webhooks: bare fetch loop, concurrency 4", value: round(bare, 0), unit: "req/s" },
    { name: "webhooks: engine deliveries, concurrency 4 (memory)", value: round(engine, 0), unit: "deliveries/s" },
    { name: "webhooks: engine / bare fetch", value: round(ratio), unit: "ratio", target: ">= 0.7", met: ratio >= 0.7 },
    { name: "webhooks: bare node:http loop, concurrency 4", value: round(http, 0), unit: "req/s" },
    { name: "webhooks: engine / bare node:http (its own client)", value: round(httpRatio), unit: "ratio", target: ">= 0.6", met: httpRatio >= 0.6 },
    { name: "webhooks: CPU per request, bare fetch loop", value: round(bareCpu, 3), unit: "ms" },
    { name: "webhooks: CPU per request, bare node:http loop", value: round(percentile(httpRuns.map((r) => r.cpuMs), 50), 3), unit: "ms" },
    { name: "webhooks: CPU per delivery, engine (memory)", value: round(engineCpu, 3), unit: "ms", target: "<= 0.15", met: engineCpu <= 0.15 },
    { name: `webhooks: engine deliveries, concurrency 4 (sqlite, ${EMITTERS} emitters)`, value: round(engineSqlite, 0), unit: "deliveries/s", target: ">= 3000", met: engineSqlite >= 3000 },
    { name: "webhooks: CPU per delivery, engine (sqlite, its statements included)", value: round(percentile(sqliteRuns.map((r) => r.cpuMs), 50), 3), unit: "ms" },
    { name: "webhooks: engine deliveries, concurrency 4 (sqlite, one event at a time)", value: round(engineOne, 0), unit: "deliveries/s" },
    { name: "webhooks: API call to first attempt p50 (memory)", value: round(p50), unit: "ms", target: "<= 20", met: p50 <= 20 },
    { name: "webhooks: API call to first attempt p95 (memory)", value: round(percentile(memory, 95)), unit: "ms" },
    { name: "webhooks: API call to first attempt p50 (sqlite)", value: round(percentile(onSqlite, 50)), unit: "ms" },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await benchWebhooks({ quick: process.argv.includes("--quick") });
  console.table(rows);
}
