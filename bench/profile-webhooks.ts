/**
 * Profiles the webhook engine's delivery path: `npx tsx bench/profile-webhooks.ts [memory|fs] [count]`.
 * Runs the webhooks bench's engine throughput (emit → signed POST to a receiver process → stored outcome,
 * concurrency 4) once to warm up, then once under the V8 profiler (node:inspector), and prints the rate,
 * CPU per delivery and the functions with the most self time (one-off; not in `npm run bench`). Like the
 * bench, it runs the TypeScript sources (tsx resolves `@lp/*` through tsconfig.json's paths): no build needed.
 */
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineThroughput } from "./webhooks.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const storage = process.argv[2] === "fs" ? "fs" : "memory";
const count = Number(process.argv[3] ?? (storage === "fs" ? 1000 : 4000));

await engineThroughput(storage, count);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const result = await engineThroughput(storage, count);
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
  const where = callFrame.url ? `${callFrame.url.split("/").slice(-2).join("/")}:${callFrame.lineNumber + 1}` : "";
  const name = `${callFrame.functionName || "(anonymous)"} ${where}`;
  self.set(name, (self.get(name) ?? 0) + us);
}
process.stdout.write(`${storage}: ${Math.round(result.rate)} deliveries/s, ${result.cpuMs.toFixed(3)} ms CPU per delivery (this process)\n`);
process.stdout.write(`profile: ${file}; self time of the top functions, µs per delivery (all threads of this process' JS):\n`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
  process.stdout.write(`${(us / count).toFixed(1).padStart(7)}  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}\n`);
}
