/**
 * What holds the event loop while a restarted server answers its first lists: `npx tsx bench/profile-restart.ts
 * [count] [--late=ms]` (default 100000 products, ticks 30 ms late; build first: it runs the built CLI).
 * Writes `count` products into one account's database, starts `lp serve` under the V8 profiler
 * (`--cpu-prof`, a sample every 250 µs) with a 1 ms timer preloaded that notes every tick more than `late` ms
 * late, lists the products once, newest first, then by title (each a keyset query on the database's index of
 * its sort), and stops the server. For each late tick after Ready it prints its length, the CPU the server's
 * main thread was seen running inside it (its samples other than idle, 250 µs each), and the functions it
 * was running: a late tick with little CPU in it is time the process spent waiting for a core.
 * One-off, not in `npm run bench`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seedSqliteProducts, spawnServe, stopServe, type ServedLp } from "./lib/restart-seed.js";

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The profiler's sampling interval (µs), as passed to `--cpu-prof-interval`. */
const INTERVAL_US = 250;
const kind = "sqlite";
// The first argument was once the store; "sqlite" there is still taken and skipped.
const given = process.argv.slice(2).filter((a) => a !== "sqlite");
const count = Number(given[0]?.startsWith("--") ? 100_000 : (given[0] ?? 100_000));
const lateMs = Number(process.argv.find((a) => a.startsWith("--late="))?.slice("--late=".length) ?? 30);
const root = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "profile-restart-"));
const probe = join(work, "probe.mjs");
const lateFile = join(work, "late.json");
// Late ticks as [start, end] in µs of the monotonic clock, the clock the profile's timestamps use.
writeFileSync(
  probe,
  `import { writeFileSync } from "node:fs";
const now = () => Number(process.hrtime.bigint() / 1000n);
let last = now();
const late = [];
setInterval(() => { const t = now(); if (t - last > ${lateMs * 1000}) late.push([last, t]); last = t; }, 1).unref();
process.on("exit", () => writeFileSync(${JSON.stringify(lateFile)}, JSON.stringify(late)));
`,
);

async function serve(args: string[], node: string[] = []): Promise<ServedLp & { ready: number }> {
  const served = await spawnServe(root, work, args, node);
  return { ...served, ready: Number(process.hrtime.bigint() / 1000n) };
}

const stop = stopServe;

/** Each late tick after `from`: its length, the CPU seen running in it, and the functions with most samples. */
function lateTicks(profile: Profile, late: [number, number][], from: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const label = (id: number) => {
    const frame = byId.get(id)!.callFrame;
    return `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
  };
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  return late
    .filter(([start]) => start >= from)
    .sort((a, b) => b[1] - b[0] - (a[1] - a[0]))
    .slice(0, 10)
    .map(([start, end]) => {
      const seen = new Map<string, number>();
      let busy = 0;
      for (let i = 1; i < times.length; i++) {
        if (times[i]! < start || times[i]! > end) continue;
        const name = label(profile.samples[i]!);
        if (name.startsWith("(idle)")) continue;
        // A sample stands for one interval of running: a thread that waits for a core is not sampled meanwhile,
        // whereas the gap to the next sample would count that wait as work.
        const spent = INTERVAL_US;
        busy += spent;
        seen.set(name, (seen.get(name) ?? 0) + spent);
      }
      const top = [...seen].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([name, us]) => `${name} ${(us / 1000).toFixed(1)}`);
      return `late tick ${((end - start) / 1000).toFixed(0)} ms, main thread running ${(busy / 1000).toFixed(1)} ms: ${top.join(", ") || "nothing sampled"}`;
    });
}

try {
  const dataDir = join(work, "data");
  const args = ["--storage", "sqlite", "--data-dir", dataDir];
  const first = await serve(args);
  const account = first.env.LP_ACCOUNT!;
  await stop(first.child);
  await seedSqliteProducts(dataDir, account, count);
  const server = await serve(args, ["--cpu-prof", "--cpu-prof-interval", String(INTERVAL_US), "--cpu-prof-dir", work, "--import", probe]);
  const t = performance.now();
  const res = await fetch(`${server.url}/v1/accounts/${account}/products?per_page=20`, { headers: { authorization: `Bearer ${server.env.LP_TOKEN}` } });
  await res.text();
  const listed = performance.now() - t;
  const t2 = performance.now();
  const sorted = await fetch(`${server.url}/v1/accounts/${account}/products?per_page=20&sort=title`, { headers: { authorization: `Bearer ${server.env.LP_TOKEN}` } });
  await sorted.text();
  const whole = performance.now() - t2;
  await new Promise((r) => setTimeout(r, 1000));
  await stop(server.child);
  // One profile per thread (CPU.<date>.<time>.<pid>.<thread id>.<seq>): the main thread is 0.
  const profile = JSON.parse(readFileSync(join(work, readdirSync(work).find((f) => f.endsWith(".cpuprofile") && f.split(".")[4] === "0")!), "utf8")) as Profile;
  const late = JSON.parse(readFileSync(lateFile, "utf8")) as [number, number][];
  const load = `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`;
  const how = "lists read from the database's indexes";
  console.log(`${kind}, ${count} products, ${how}: first list ${res.status} in ${listed.toFixed(1)} ms, by title ${sorted.status} in ${whole.toFixed(0)} ms (${load})`);
  console.log(lateTicks(profile, late, server.ready).join("\n") || `no tick more than ${lateMs} ms late after Ready`);
} finally {
  rmSync(work, { recursive: true, force: true, maxRetries: 5 });
}
