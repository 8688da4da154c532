import { startServe } from "../../cli/src/e2e/processes.js";
import type { BenchContext } from "../lib/context.js";
import { fmt, type Row } from "../lib/table.js";

/** 64,000 digits: the string that once kept a colour or number pattern busy for seconds. */
const digits = "1".repeat(64_000);
const TARGET_MS = 50;

const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;

/**
 * Strings at their body limit against a real `lp serve` (issue 27): how long a 64 kB colour, a 64,000-digit
 * multipart price and a 3,000-segment media path take to be refused, and how long `/healthz`, sent at the
 * same moment on another connection, waits behind them. Target: both under 50 ms.
 */
export async function runHostileStrings(ctx: BenchContext): Promise<Row[]> {
  ctx.log("hostile strings");
  const served = await startServe(["--storage", "sqlite"]);
  const url = served.env.LP_API_URL;
  const auth = { authorization: `Bearer ${served.env.LP_TOKEN}` };
  const account = served.env.LP_ACCOUNT;
  const form = () => {
    const f = new FormData();
    f.set("title", "Poster");
    f.set("product_type", "physical");
    f.set("price", `${digits}x`);
    return f;
  };
  const cases: [string, () => Promise<Response>][] = [
    ["64 kB colour, POST /pages", () => fetch(`${url}/v1/accounts/${account}/pages`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ product: { title: "Lamp", description: "A lamp.", price: 4, product_type: "physical" }, design: { primary_color: `rgb(${digits}` } }) })],
    ["64,000-digit price, multipart", () => fetch(`${url}/v1/accounts/${account}/products`, { method: "POST", headers: auth, body: form() })],
    ["3,000-segment media path", () => fetch(`${url}/media/${"a/".repeat(3000)}b.png`)],
  ];
  const rows: Row[] = [];
  const runs = ctx.quick ? 10 : 40;
  try {
    for (const [name, send] of cases) {
      const answer: number[] = [];
      const health: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const [res, healthMs] = await Promise.all([
          send().then(async (r) => {
            await r.arrayBuffer();
            answer.push(performance.now() - t0);
            return r;
          }),
          fetch(`${url}/healthz`).then(async (r) => {
            await r.arrayBuffer();
            return performance.now() - t0;
          }),
        ]);
        if (res.status !== 400 && res.status !== 404) throw new Error(`${name}: status ${res.status}`);
        health.push(healthMs);
      }
      // The median is judged: on a shared two-core machine the slowest run says more about the neighbours.
      rows.push({ scenario: `${name}: refused (p50 / p90)`, measured: `${fmt(p(answer, 0.5), 1)} / ${fmt(p(answer, 0.9), 1)} ms`, target: `p50 < ${TARGET_MS} ms`, met: p(answer, 0.5) < TARGET_MS });
      rows.push({ scenario: `${name}: /healthz beside it (p50 / p90)`, measured: `${fmt(p(health, 0.5), 1)} / ${fmt(p(health, 0.9), 1)} ms`, target: `p50 < ${TARGET_MS} ms`, met: p(health, 0.5) < TARGET_MS });
    }
  } finally {
    await served.stop();
  }
  return rows;
}
