/**
 * One-off: the startup scenario's in-process row (`startLp()`, one product created through its client, and its
 * close, in one process on memory) over many cycles, for one build or two alternated cycle by cycle, so that the
 * load of the machine falls on both alike. Prints each build's median CPU (this process's user and system time)
 * and wall time per cycle, and with two builds the second's over the first's.
 *
 *   npx tsx bench/start-lp-cycles.ts [cycles] [testing.js ...]   (default 200 cycles of cli/dist/testing.js; build first)
 *
 * A build to compare with is a copy of `cli/dist` kept inside the repository (for instance under
 * `node_modules/.cache/`), so that its imports resolve as the real one's do.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib/root.js";
import { median } from "./lib/table.js";

type StartLp = typeof import("../cli/src/start-lp/start-lp.js").startLp;

const WARM_UP = 30;
const args = process.argv.slice(2);
const cycles = /^\d+$/.test(args[0] ?? "") ? Number(args.shift()) : 200;
const paths = args.length > 0 ? args.map((p) => resolve(p)) : [join(ROOT, "cli/dist/testing.js")];
const builds = await Promise.all(paths.map(async (path) => ((await import(pathToFileURL(path).href)) as { startLp: StartLp }).startLp));

/** One cycle of `startLp`: its CPU and wall time in ms. */
async function cycle(startLp: StartLp): Promise<{ cpu: number; wall: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const lp = await startLp();
  await lp.client.products.create({ title: "Apron", price: 42, product_type: "physical" });
  await lp.close();
  const cpu = process.cpuUsage(cpu0);
  return { cpu: (cpu.user + cpu.system) / 1000, wall: performance.now() - t0 };
}

for (let i = 0; i < WARM_UP; i++) for (const build of builds) await cycle(build);
const results = builds.map(() => ({ cpu: [] as number[], wall: [] as number[] }));
for (let i = 0; i < cycles; i++) {
  // Each build goes first every other cycle.
  const order = i % 2 === 0 ? builds.map((_, k) => k) : builds.map((_, k) => builds.length - 1 - k);
  for (const k of order) {
    const { cpu, wall } = await cycle(builds[k]!);
    results[k]!.cpu.push(cpu);
    results[k]!.wall.push(wall);
  }
}
const medians = results.map((r) => ({ cpu: median(r.cpu), wall: median(r.wall) }));
medians.forEach((m, k) => console.log(`${paths[k]}: median CPU ${m.cpu.toFixed(2)} ms, wall ${m.wall.toFixed(2)} ms over ${cycles} cycles`));
if (medians.length === 2) {
  const [a, b] = medians as [{ cpu: number; wall: number }, { cpu: number; wall: number }];
  console.log(`second / first: CPU ${(b.cpu / a.cpu).toFixed(3)}x, wall ${(b.wall / a.wall).toFixed(3)}x`);
}
