/**
 * Where a restarted server's memory goes with 100,000 products in its database: `npx tsx
 * bench/memory-restart.ts [count]` (one-off, not in `npm run bench`; build first: it runs the built CLI).
 * Writes `count` products (default 100,000) into one account's database, starts `lp serve` on it with a
 * preloaded probe, and after a full collection at ready and again after a list by title (read from the
 * database's index of titles) prints the RSS, V8's heap spaces (used / resident) and the resident memory by
 * kind of mapping (`/proc/<pid>/smaps`: V8's heap pages, the C heap, the node binary).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { seedSqliteProducts, spawnServe, stopServe } from "./lib/restart-seed.js";
import { ROOT } from "./lib/root.js";

const count = Number(process.argv[2] ?? 100_000);
const work = mkdtempSync(join(tmpdir(), "memory-restart-"));
const probe = join(work, "probe.mjs");
const out = join(work, "probe.json");
// On SIGUSR2: a full collection, then one line of figures appended to `out`.
writeFileSync(
  probe,
  `import { appendFileSync, readFileSync } from "node:fs";
import v8 from "node:v8";
const mb = (n) => Math.round(n / 104857.6) / 10;
process.on("SIGUSR2", () => {
  globalThis.gc();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().filter((s) => s.physical_space_size > 0).map((s) => [s.space_name, mb(s.space_used_size) + " / " + mb(s.physical_space_size)]));
  const kinds = {};
  let kind = "";
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \\S+ \\S+ \\S+ \\S+\\s*(.*)$/.exec(line);
    if (head) kind = head[1] || "anonymous (V8 heap pages, thread arenas)";
    else if (line.startsWith("Rss:")) kinds[kind] = (kinds[kind] ?? 0) + Number(line.split(/\\s+/)[1]) * 1024;
  }
  const top = Object.entries(kinds).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([k, v]) => k + " " + mb(v));
  appendFileSync(${JSON.stringify(out)}, JSON.stringify({ rss: mb(process.memoryUsage().rss), spaces, resident: top }) + "\\n");
});
`,
);

try {
  const dataDir = join(work, "data");
  const args = ["--storage", "sqlite", "--data-dir", dataDir];
  const first = await spawnServe(ROOT, work, args);
  const account = first.env.LP_ACCOUNT!;
  await stopServe(first.child);
  await seedSqliteProducts(dataDir, account, count);
  const server = await spawnServe(ROOT, work, args, ["--expose-gc", "--import", probe]);
  const figures = async (label: string) => {
    const before = readFileSync(out, { flag: "a+" }).toString().split("\n").length;
    server.child.kill("SIGUSR2");
    while (readFileSync(out, "utf8").split("\n").length === before) await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(label, readFileSync(out, "utf8").trim().split("\n").pop());
  };
  await figures("ready:");
  const res = await fetch(`${server.url}/v1/accounts/${account}/products?per_page=20&sort=title`, { headers: { authorization: `Bearer ${server.env.LP_TOKEN}` } });
  await res.text();
  await figures(`after a list by title of ${count} products (${res.status}):`);
  await stopServe(server.child);
  console.log(`load average ${loadavg()[0].toFixed(1)}`);
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
