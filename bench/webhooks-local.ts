/**
 * The webhook engine with no socket: the bench's engine run (emit → signed attempt → stored outcome,
 * concurrency 4, memory storage) through a fetch that answers 200 at once, in this process. What it costs per
 * delivery is the engine's own work (the event and its delivery written in one transaction, the claim, signing,
 * the attempt and the delivery's next state recorded in another) plus the fetch's Response, without node:http
 * and the socket writes. `bench/profile-webhooks.ts
 * local` profiles it.
 */
import { createCore, endpointCreateSchema, ensureDevCredentials } from "@lp/core";

/** Answers the verification challenge, and 200 with an empty JSON object to everything else. */
async function answerAtOnce(_url: string, init: RequestInit): Promise<Response> {
  const body = String(init.body);
  if (body.includes('"webhook.verification"')) {
    const parsed = JSON.parse(body) as { data: { challenge: string } };
    return new Response(JSON.stringify({ challenge: parsed.data.challenge }), { status: 200 });
  }
  return new Response("{}", { status: 200, headers: { "content-length": "2" } });
}

/** `count` deliveries through a fresh memory core: deliveries per second, and this process's CPU ms per delivery. */
export async function engineLocalThroughput(count: number): Promise<{ rate: number; cpuMs: number }> {
  const core = await createCore({ publicUrl: () => "http://lp.test", fetch: answerAtOnce });
  try {
    const credentials = await ensureDevCredentials(core.database, core.clock, core.ids);
    await core.webhooks.endpoints.create(credentials.application_id, endpointCreateSchema.parse({ url: "http://127.0.0.1:9/hooks", events: ["product.created"], concurrency_limit: 4 }));
    const data = { id: "bench", title: "Bench lamp", price: 10 };
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < count; i++) await core.webhooks.sink.emit({ type: "product.created", account_id: credentials.account_id, data });
    await core.onIdle();
    const used = process.cpuUsage(cpu);
    return { rate: count / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / count };
  } finally {
    await core.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const count = Number(process.argv[2] ?? 4000);
  await engineLocalThroughput(count);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push((await engineLocalThroughput(count)).cpuMs);
  runs.sort((a, b) => a - b);
  process.stdout.write(`engine with no socket (memory): CPU per delivery, median of 5 runs ${runs[2].toFixed(3)} ms (lowest ${runs[0].toFixed(3)})\n`);
}
