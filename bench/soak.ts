/**
 * `npm run soak [-- --duration 60s --rate 50 --window 30s --warmup 30s]`: starts the server (bundled, plain
 * node, the embedded store (SQLite), 127.0.0.1, port 0) as a child process and a webhook receiver here, registers an
 * endpoint for the dev application, and sends a steady mixed load: a warm-up, then the measured duration
 * (5 minutes by default). Prints a table per window (requests, errors, p50/p99 latency, webhook events
 * received, server RSS sampled each second from /proc/<pid>/status, server heap after a forced full GC, and
 * the size V8 gives the young generation then, which it doubles under a steady load and which RSS carries)
 * and a verdict: zero errors, RSS growth at most 10 % (median of the last window against the first), no
 * owed webhook event missing.
 * Exits 1 when the verdict fails. Never part of the test suite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createReceiver } from "../packages/webhooks/src/index.js";
import { startSoakServer } from "./soak-child.js";
import { createSoakLoad } from "./soak-load.js";
import { createWindowRecorder, formatWindows, parseDuration, readRssMb, type WindowStats } from "./soak-stats.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const durationMs = parseDuration(arg("duration", "5m"));
const windowMs = parseDuration(arg("window", "30s"));
const warmupMs = parseDuration(arg("warmup", "30s"));
const rate = Number(arg("rate", "50"));
/** Beyond this many unanswered requests the server is not keeping up: further sends count as errors. */
const MAX_IN_FLIGHT = 200;
const RSS_TARGET = 0.1;
const log = (line: string) => process.stderr.write(`[soak] ${line}\n`);

const dir = mkdtempSync(join(tmpdir(), "lp-soak-"));
const receiver = await createReceiver();
const server = await startSoakServer(dir);
const { child, info } = server;
try {
  const appAuth = `Basic ${Buffer.from(`${info.appId}:${info.appSecret}`).toString("base64")}`;
  const created = await fetch(`${info.url}/v1/developer/webhook-endpoints`, {
    method: "POST",
    headers: { authorization: appAuth, "content-type": "application/json" },
    body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ["product.created", "product.updated", "page.created", "deployment.succeeded"] }),
  });
  const endpoint = (await created.json()) as { data: { id: string; secret: string; status: string } };
  if (created.status !== 201 || endpoint.data.status !== "active") throw new Error(`endpoint not active: ${created.status} ${JSON.stringify(endpoint)}`);
  receiver.setSecret(endpoint.data.secret);

  const errors = new Map<string, number>();
  const fail = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);
  const recorder = createWindowRecorder();
  let warm = { requests: 0, errors: 0 };
  let measuring = false;
  const load = createSoakLoad({ ...info, appAuth, endpointId: endpoint.data.id }, (ms, ok, what) => {
    if (!ok) fail(what);
    if (measuring) recorder.record(ms, ok);
    else warm = { requests: warm.requests + 1, errors: warm.errors + (ok ? 0 : 1) };
  });
  const pid = child.pid!;
  const rssBefore = readRssMb(pid);
  const machine = `node ${process.version}, ${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(1)}`;
  log(`${rate} req/s: ${warmupMs / 1000} s warm-up, then ${durationMs / 1000} s in ${windowMs / 1000}-s windows; ${info.url} (pid ${pid}, RSS ${rssBefore.toFixed(1)} MB); ${machine}`);

  const windows: WindowStats[] = [];
  let webhooksSeen = 0;
  let rssAtStart = NaN;
  let heapAtStart: Promise<{ heapUsedMb: number; newSpaceMb: number }> = Promise.resolve({ heapUsedMb: NaN, newSpaceMb: NaN });
  const heaps: Promise<void>[] = [];
  const cut = (toMs: number) => {
    const w = recorder.cut(toMs / 1000, receiver.events.length - webhooksSeen);
    webhooksSeen = receiver.events.length;
    windows.push(w);
    heaps.push(
      server.heapAfterGc().then((heap) => {
        w.heapMb = heap.heapUsedMb;
        w.newSpaceMb = heap.newSpaceMb;
      }),
    );
    log(`window ${w.index}: ${w.requests} requests, ${w.errors} errors, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms, RSS median ${w.rssMedian.toFixed(1)} MB`);
  };

  // Open loop: requests leave on schedule whether or not earlier ones were answered.
  let sent = 0;
  let inFlight = 0;
  let nextCut = windowMs;
  let nextSample = 0;
  const totalMs = warmupMs + durationMs;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - t0;
      const due = Math.floor((Math.min(elapsed, totalMs) / 1000) * rate);
      for (; sent < due; sent++) {
        if (inFlight >= MAX_IN_FLIGHT) {
          if (measuring) recorder.record(0, false);
          fail("shed: too many requests in flight");
          continue;
        }
        inFlight++;
        void load.next().finally(() => inFlight--);
      }
      const measured = elapsed - warmupMs;
      if (!measuring && measured >= 0) {
        measuring = true;
        rssAtStart = readRssMb(pid);
        heapAtStart = server.heapAfterGc();
        webhooksSeen = receiver.events.length;
      }
      if (measuring && measured >= nextSample) {
        recorder.sampleRss(readRssMb(pid));
        nextSample += 1000;
      }
      if (measuring && measured >= nextCut && nextCut < durationMs) {
        cut(nextCut);
        nextCut += windowMs;
      }
      if (elapsed >= totalMs) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  const drainDeadline = Date.now() + 30_000;
  while (inFlight > 0 && Date.now() < drainDeadline) await new Promise((r) => setTimeout(r, 50));
  recorder.sampleRss(readRssMb(pid));
  cut(durationMs);

  // Every product whose creation was acknowledged owes one product.created event.
  const delivered = () => new Set(receiver.events.filter((e) => e.type === "product.created").map((e) => (e.data as { id: string }).id));
  const missing = () => [...load.created].filter((id) => !delivered().has(id)).length;
  const webhookDeadline = Date.now() + 30_000;
  while (missing() > 0 && Date.now() < webhookDeadline) await new Promise((r) => setTimeout(r, 100));

  await Promise.all(heaps);
  const { heapUsedMb: heapStart, newSpaceMb: newSpaceStart } = await heapAtStart;
  const totals = windows.reduce((t, w) => ({ requests: t.requests + w.requests, errors: t.errors + w.errors }), { requests: 0, errors: 0 });
  const first = windows[0];
  const last = windows[windows.length - 1];
  // Leak criterion: the median RSS of the last window against the first (one sample a second), so that
  // where a garbage collection happens to fall does not decide the verdict. Raw readings are printed too.
  const growth = (last.rssMedian - first.rssMedian) / first.rssMedian;
  const lost = missing();
  const allErrors = totals.errors + warm.errors;
  const pass = allErrors === 0 && growth <= RSS_TARGET && lost === 0;
  const pct = (n: number) => (Number.isFinite(n) ? `${n >= 0 ? "+" : ""}${(n * 100).toFixed(1)} %` : "n/a");
  process.stdout.write(
    `\nlp soak: ${durationMs / 1000} s at ${rate} req/s after a ${warmupMs / 1000}-s warm-up, sqlite storage, 127.0.0.1; ${machine}\n\n${formatWindows(windows)}\n\n` +
      `requests ${totals.requests} (+${warm.requests} in the warm-up), errors ${allErrors}; webhook events received ${receiver.events.length} ` +
      `(${receiver.deliveries.length} requests), product.created owed ${load.created.size}, missing ${lost}\n` +
      `server RSS: ${rssBefore.toFixed(1)} MB before load, ${rssAtStart.toFixed(1)} MB after the warm-up, ${last.rssEnd.toFixed(1)} MB at the end; ` +
      `median ${first.rssMedian.toFixed(1)} MB in window 1, ${last.rssMedian.toFixed(1)} MB in window ${last.index}: ${pct(growth)}\n` +
      `server heap after a full GC: ${heapStart.toFixed(1)} MB after the warm-up, ${last.heapMb.toFixed(1)} MB at the end ` +
      `(${pct((last.heapMb - heapStart) / heapStart)}); V8's young generation ${newSpaceStart.toFixed(1)} MB after the warm-up, ${last.newSpaceMb.toFixed(1)} MB at the end\n`,
  );
  for (const [what, n] of [...errors].slice(0, 10)) process.stdout.write(`error x${n}: ${what}\n`);
  process.stdout.write(
    `verdict: ${pass ? "PASS" : "FAIL"} (errors ${allErrors}, target 0; RSS growth ${pct(growth)}, target <= +10 %; webhook events missing ${lost}, target 0)\n`,
  );
  process.exitCode = pass ? 0 : 1;
} finally {
  const code = await server.stop();
  if (code !== 0) log(`the server exited with ${code}`);
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
