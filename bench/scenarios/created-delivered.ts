import { spawn } from "node:child_process";
import { startChild, type Child } from "../lib/child.js";
import type { BenchContext } from "../lib/context.js";
import { runLoad, warmUp, type LoadOptions } from "../lib/load.js";
import { describeLoop } from "../lib/loop-delay.js";
import { fmt, median, type Row } from "../lib/table.js";

interface LpInfo {
  url: string;
  account: string;
  token: string;
}

/** The embedded store's rate against memory's, within a round (issue 39). */
const RATIO_TARGET = 0.8;
const ROUNDS = 3;
/** How long a round may wait for its last delivery after the load ends. */
const DRAIN_LIMIT_MS = 120_000;
const BODY = JSON.stringify({ title: "Delivered product", price: 12.5, product_type: "physical" });

/**
 * A local receiver in a process of its own (as `lp listen` is): answers the verification challenge and 200
 * to everything else at once, counts product.created arrivals, and answers a GET with that count.
 */
const RECEIVER = `
const { createServer } = require("node:http");
let created = 0;
const server = createServer((req, res) => {
  if (req.method === "GET") return res.end(String(created));
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let reply = "{}";
    try {
      const p = JSON.parse(Buffer.concat(chunks).toString());
      if (p.type === "webhook.verification") reply = JSON.stringify({ challenge: p.data.challenge });
      else if (p.type === "product.created") created++;
    } catch {}
    res.writeHead(200, { "content-type": "application/json" }).end(reply);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

async function startReceiver(): Promise<{ url: string; count(): Promise<number>; close(): void }> {
  const child = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
  });
  const url = `http://127.0.0.1:${port}`;
  return { url: `${url}/hooks`, count: async () => Number(await (await fetch(url)).text()), close: () => void child.kill() };
}

/** One side: an lp server whose dev application has an endpoint at its own receiver, and the products it created so far. */
interface Side {
  name: "memory" | "sqlite";
  server: Child<LpInfo>;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  created: number;
}

/**
 * POSTs products for `seconds`, then waits until the receiver has every product.created of them: products
 * created and delivered per second, from the first POST to the last arrival.
 */
async function round(side: Side, seconds: number): Promise<{ rate: number; failed: number; drainMs: number }> {
  const load: LoadOptions = {
    url: `${side.server.info.url}/v1/accounts/${side.server.info.account}/products`,
    method: "POST",
    headers: { authorization: `Bearer ${side.server.info.token}`, "content-type": "application/json" },
    body: BODY,
    seconds,
  };
  const t0 = performance.now();
  const { result, drainMs } = await side.server.loop.around(async () => {
    const result = await runLoad(load);
    side.created += result.ok;
    const loadEnd = performance.now();
    // Polling is cheap for the receiver (one GET each 20 ms), and ends with the last arrival.
    while ((await side.receiver.count()) < side.created) {
      if (performance.now() - loadEnd > DRAIN_LIMIT_MS) throw new Error(`${side.name}: deliveries still missing ${DRAIN_LIMIT_MS} ms after the load`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { result, drainMs: performance.now() - loadEnd };
  });
  return { rate: result.ok / ((performance.now() - t0) / 1000), failed: result.errors + result.non2xx, drainMs };
}

/**
 * Products created through the API and delivered to a local receiver (product.created), on memory and on
 * the embedded store (SQLite), in interleaved rounds: each round POSTs for the run's length on 10
 * connections and ends when the last delivery of its products has arrived. The rate is products per second
 * from the first POST to that arrival; the ratio is taken within each round and the median round's judged.
 */
export async function runCreatedDelivered(ctx: BenchContext): Promise<Row[]> {
  ctx.log(`products created and delivered to a local receiver: memory and sqlite, ${ROUNDS} interleaved rounds`);
  const sides: Side[] = [];
  try {
    for (const name of ["memory", "sqlite"] as const) {
      const receiver = await startReceiver();
      const env: Record<string, string> = { BENCH_STORAGE: name, BENCH_SEED: "0", BENCH_WEBHOOK_URL: receiver.url };
      if (name === "sqlite") env.BENCH_DIR = ctx.tempDir("created-delivered");
      const server = await startChild<LpInfo>("bench/servers/lp-server.ts", env).catch((error) => {
        receiver.close();
        throw error;
      });
      sides.push({ name, server, receiver, created: 0 });
    }
    // Warm-up: one short round each, not measured (JIT, sockets, the endpoint's first deliveries).
    for (const side of sides) await round(side, 1);
    const rounds: Record<string, Awaited<ReturnType<typeof round>>>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const results: Record<string, Awaited<ReturnType<typeof round>>> = {};
      for (const side of sides) results[side.name] = await round(side, ctx.seconds);
      rounds.push(results);
      ctx.log(`round ${i + 1}: memory ${fmt(results.memory.rate)}/s, sqlite ${fmt(results.sqlite.rate)}/s`);
    }
    const ratios = rounds.map((r) => r.sqlite.rate / r.memory.rate);
    const failed = rounds.some((r) => r.memory.failed + r.sqlite.failed > 0);
    const side = (name: string) => {
      const rate = median(rounds.map((r) => r[name].rate));
      const drain = median(rounds.map((r) => r[name].drainMs));
      return `${fmt(rate)} products/s (last delivery ${fmt(drain)} ms after the last POST)`;
    };
    const loop = (name: string) => describeLoop(sides.find((s) => s.name === name)!.server.loop.worst());
    return [
      { scenario: "products created and delivered to a local receiver (memory)", measured: side("memory"), loop: loop("memory"), target: "-", met: null },
      { scenario: "products created and delivered to a local receiver (sqlite)", measured: side("sqlite"), loop: loop("sqlite"), target: "-", met: null },
      {
        scenario: "products created and delivered: sqlite / memory",
        measured: `${fmt(median(ratios), 2)}x (rounds ${ratios.map((r) => fmt(r, 2)).join("/")}x)`,
        target: `>= ${RATIO_TARGET}x memory`,
        met: median(ratios) >= RATIO_TARGET && !failed,
      },
    ];
  } finally {
    for (const side of sides) {
      await side.server.stop();
      side.receiver.close();
    }
  }
}
