/**
 * Profiles the webhook engine's delivery path: `npx tsx bench/profile-webhooks.ts [memory|sqlite|bare|local] [count] [--alloc]`.
 * Runs the webhooks bench's engine throughput (emit → signed POST to a receiver process → stored outcome,
 * concurrency 4; sqlite: from 32 emitters, as the bench's sqlite row; `bare`: the bench's bare node:http loop; `local`:
 * the engine on memory with a fetch that answers at once, no socket, `bench/webhooks-local.ts`) once to warm
 * up, then once under the V8 profiler
 * (node:inspector), and prints the rate, CPU per delivery and the functions with the most self time; with
 * `--alloc`, under the sampling heap profiler instead (collected objects included): bytes allocated per
 * delivery and the functions that allocate most (one-off; not in `npm run bench`). Like the bench, it runs
 * the TypeScript sources (tsx resolves `@lp/*` through tsconfig.json's paths): no build needed.
 */
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareHttpThroughput, engineThroughput } from "./webhooks.js";
import { engineLocalThroughput } from "./webhooks-local.js";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

const storage = (["sqlite", "bare", "local"] as const).find((kind) => kind === process.argv[2]) ?? "memory";
const count = Number(process.argv[3] ?? (storage === "sqlite" ? 1000 : 4000));
const alloc = process.argv.includes("--alloc");
const run = () =>
  storage === "bare" ? bareHttpThroughput(count) : storage === "local" ? engineLocalThroughput(count) : engineThroughput(storage, count, storage === "sqlite" ? 32 : 1);
const nameOf = ({ functionName, url, lineNumber }: CallFrame) =>
  `${functionName || "(anonymous)"} ${url ? `${url.split("/").slice(-2).join("/")}:${lineNumber + 1}` : ""}`;
const top = (totals: Map<string, number>, whole: number, unit: string) => {
  process.stdout.write(`${unit} per delivery of the top functions (self), and their share:\n`);
  for (const [name, value] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    process.stdout.write(`${(value / count).toFixed(1).padStart(8)}  ${((100 * value) / whole).toFixed(1).padStart(5)}%  ${name}\n`);
  }
};

await run();
const session = new Session();
session.connect();
if (alloc) {
  await session.post("HeapProfiler.enable");
  // The flags keep objects already collected in the profile: what matters here is what was allocated.
  await session.post("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
  const result = await run();
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: { head: HeapNode } };
  session.disconnect();
  const self = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    total += node.selfSize;
    if (node.selfSize > 0) self.set(nameOf(node.callFrame), (self.get(nameOf(node.callFrame)) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  process.stdout.write(`${storage}: ${Math.round(result.rate)} deliveries/s, ${Math.round(total / count)} bytes allocated per delivery (sampled)\n`);
  top(self, total, "bytes");
} else {
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  const result = await run();
  const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: Profile };
  session.disconnect();
  const file = join(tmpdir(), `lp-webhooks-${storage}-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const { callFrame } = byId.get(profile.samples[i])!;
    const us = profile.timeDeltas[i] ?? 0;
    if (callFrame.functionName === "(idle)") continue;
    busy += us;
    self.set(nameOf(callFrame), (self.get(nameOf(callFrame)) ?? 0) + us);
  }
  process.stdout.write(`${storage}: ${Math.round(result.rate)} deliveries/s, ${result.cpuMs.toFixed(3)} ms CPU per delivery (this process)\n`);
  // The inspector samples this thread, where node:sqlite runs every statement too: the commits are in these
  // figures, as the native frames of its calls. The receiver is another process, and is not.
  process.stdout.write(`profile: ${file}; this thread's JavaScript, node:sqlite's statements included (not the receiver's)\n`);
  top(self, busy, "µs");
}
