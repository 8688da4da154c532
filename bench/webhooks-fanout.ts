/**
 * Fan-out to many endpoints (issue 17, item 4): a real `lp serve` process on the embedded store with N webhook
 * endpoints of one application (the cap raised to N), a receiver in another process, then one product
 * POST. Prints the POST's latency, a GET's latency while the fan-out runs, the time until every delivery
 * arrived, and the server's peak RSS. Run: `npx tsx bench/webhooks-fanout.ts [N=3000]`. Not in `npm run bench`
 * (it takes about a minute of setup).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnServe } from "../server/src/testing/spawn-serve.js";

const N = Number(process.argv[2] ?? 3000);

/** The receiver: its own process; answers challenges, counts events, prints the count on request. */
const SINK = `
const { createServer } = require("node:http");
let events = 0;
const server = createServer((req, res) => {
  if (req.method === "GET") return res.end(String(events));
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const p = JSON.parse(Buffer.concat(chunks).toString());
    if (p.type === "webhook.verification") return res.writeHead(200).end(JSON.stringify({ challenge: p.data.challenge }));
    events += 1;
    res.writeHead(200).end("{}");
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(server.address().port + "\\n"));
`;

const sink = spawn(process.execPath, ["-e", SINK], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise<string>((resolve) => sink.stdout.once("data", (c: Buffer) => resolve(c.toString().trim())));
const sinkUrl = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), "lp-bench-fanout-"));
const server = await spawnServe({ LP_SERVE_STORAGE: process.env.LP_BENCH_STORAGE ?? "sqlite", LP_SERVE_DATA_DIR: dir, LP_SERVE_MAX_ENDPOINTS: String(N) });
const { LP_API_URL: api, LP_APP_ID: appId, LP_APP_SECRET: appSecret, LP_TOKEN: token, LP_ACCOUNT: account } = server.env;
const basic = `Basic ${Buffer.from(`${appId}:${appSecret}`).toString("base64")}`;
const rssKb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"))?.[1] ?? 0);

try {
  const setup = performance.now();
  for (let i = 0; i < N; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, N - i) }, async () => {
        const res = await fetch(`${api}/v1/developer/webhook-endpoints`, {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/json" },
          body: JSON.stringify({ url: `${sinkUrl}/hooks`, events: ["product.created"] }),
        });
        if (res.status !== 201) throw new Error(`create endpoint: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }),
    );
  }
  const rssBefore = rssKb();
  process.stderr.write(`${N} endpoints in ${((performance.now() - setup) / 1000).toFixed(1)} s\n`);

  const t0 = performance.now();
  const post = await fetch(`${api}/v1/accounts/${account}/products`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title: "Fan-out", price: 1, product_type: "service" }),
  });
  await post.arrayBuffer();
  if (post.status !== 201) throw new Error(`product POST: ${post.status}`);
  const postMs = performance.now() - t0;
  const t1 = performance.now();
  const getUrl = `${api}/v1/accounts/${account}/products?per_page=1`;
  // A kept-alive socket the server dropped while busy is retried once on a new one (and counted in).
  const get = await fetch(getUrl, { headers: { authorization: `Bearer ${token}` } }).catch(() => fetch(getUrl, { headers: { authorization: `Bearer ${token}`, connection: "close" } }));
  await get.arrayBuffer();
  const getMs = performance.now() - t1;
  let arrived = 0;
  while (arrived < N) {
    arrived = Number(await (await fetch(sinkUrl).catch(() => fetch(sinkUrl))).text());
    if (arrived < N) await new Promise((r) => setTimeout(r, 50));
  }
  const allMs = performance.now() - t0;
  // First attempts that failed (and were retried on the schedule), from a sample of endpoints.
  const sample = (await (await fetch(`${api}/v1/developer/webhook-endpoints?per_page=50`, { headers: { authorization: basic } })).json()).data as { id: string }[];
  let retried = 0;
  const errors = new Set<string>();
  for (const e of sample) {
    const [d] = (await (await fetch(`${api}/v1/developer/webhook-endpoints/${e.id}/deliveries`, { headers: { authorization: basic } })).json()).data;
    if (d.attempts.length > 1) retried += 1;
    if (d.attempts[0].error) errors.add(d.attempts[0].error);
  }
  const rows = [
    ["endpoints", N],
    ["product POST (ms)", postMs.toFixed(0)],
    ["GET during fan-out (ms)", getMs.toFixed(0)],
    [`all ${N} deliveries arrived (s)`, (allMs / 1000).toFixed(1)],
    [`retried, of ${sample.length} sampled`, `${retried}${errors.size ? ` (${[...errors].join("; ")})` : ""}`],
    ["server peak RSS before / after (MB)", `${(rssBefore / 1024).toFixed(0)} / ${(rssKb() / 1024).toFixed(0)}`],
  ];
  process.stdout.write(rows.map(([k, v]) => `${String(k).padEnd(40)} ${v}`).join("\n") + "\n");
} finally {
  server.child.kill("SIGTERM");
  await server.exit;
  sink.kill();
  rmSync(dir, { recursive: true, force: true });
}
