import { spawnSync } from "node:child_process";
import { createReceiver, type Receiver } from "@lp/webhooks";
import { pollUntil } from "../crash/crash-api.js";
import type { Cluster } from "./cluster.js";

/** What {@link killSlotHolder} saw, times in ms from the SIGKILL. */
export interface SlotRecovery {
  /** The endpoint's concurrency_limit, every slot held by the killed process. */
  slots: number;
  /** When Redis first showed fewer live holders than slots. */
  freedMs: number;
  /** When the survivor's first attempt reached the receiver. */
  firstAttemptMs: number;
  /** When every event had been answered 200 (its first 200). */
  allDeliveredMs: number;
  /** Events owed, and how many of them reached the receiver with a 200 after the kill. */
  owed: number;
  delivered: number;
}

/** Live holders of the endpoint's slots now, read from Redis (scores are lease ends in Redis time). */
function liveHolders(port: number, key: string): number {
  const run = (...args: string[]) => spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" }).stdout.trim();
  const [seconds, micros] = run("TIME").split("\n").map(Number);
  return Number(run("ZCOUNT", key, `(${seconds * 1000 + Math.floor(micros / 1000)}`, "+inf"));
}

/**
 * On a cluster of one process: an endpoint with `slots` as its concurrency_limit, a receiver that holds its
 * first `slots` requests unanswered (so the process holds every slot), `slots * 2` events owed. Then a
 * second process joins, the first is SIGKILLed, and this waits (up to `waitMs`) until the survivor has
 * delivered every event. Kills and adds processes of `cluster`; the receiver is closed at the end.
 */
export async function killSlotHolder(cluster: Cluster, slots = 4, waitMs = 20_000): Promise<SlotRecovery> {
  let held = 0;
  const receiver: Receiver = await createReceiver({ delayMs: (d) => (!d.challenge && d.webhookId && held < slots ? (held++, 60_000) : 0) });
  try {
    const endpoint = await cluster.on(0, "POST", "/v1/developer/webhook-endpoints", {
      authorization: cluster.basic,
      body: { url: `${receiver.url}/hooks`, events: ["product.created"], concurrency_limit: slots },
    });
    if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${endpoint.text}`);
    receiver.setSecret(endpoint.json.data.secret);
    const owed = slots * 2;
    for (let i = 0; i < owed; i++) {
      const r = await cluster.on(0, "POST", "products", { body: { title: `Slot ${i}`, price: 1, product_type: "service" } });
      if (r.status !== 201) throw new Error(`product: ${r.status} ${r.text}`);
    }
    await pollUntil(`${slots} attempts held by the first process`, 20_000, async () => (held >= slots ? true : undefined));
    const survivor = await cluster.add();
    const key = `lp:webhooks:slots:${endpoint.json.data.id}`;
    const before = receiver.deliveries.length;
    await cluster.kill(0);
    const killedAt = performance.now();
    const since = () => Math.round(performance.now() - killedAt);
    let freedMs = -1;
    let firstAttemptMs = -1;
    const answered = () => new Set(receiver.deliveries.slice(before).filter((d) => !d.challenge && d.webhookId && d.response?.status === 200).map((d) => d.webhookId)).size;
    await pollUntil(`every owed event delivered by process ${survivor.index}`, waitMs, async () => {
      if (freedMs < 0 && liveHolders(cluster.redis.port, key) < slots) freedMs = since();
      if (firstAttemptMs < 0 && receiver.deliveries.length > before) firstAttemptMs = since();
      return answered() >= owed ? true : undefined;
    }).catch(() => {});
    return { slots, freedMs, firstAttemptMs, allDeliveredMs: answered() >= owed ? since() : -1, owed, delivered: answered() };
  } finally {
    await receiver.close();
  }
}
