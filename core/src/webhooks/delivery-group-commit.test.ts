import { describe, expect, it } from "vitest";
import memoryDriver from "unstorage/drivers/memory";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import { applyInOrder, toStorage, type BatchOp, type Stores } from "../storage/create-storage.js";
import type { FetchLike } from "./http-attempt.js";
import type { DeliveryRecord } from "./records.js";
import { createManualScheduler } from "./scheduler.js";
import { deliveryListSchema, endpointCreateSchema } from "./schemas.js";

/** A record as handed to a batch: the engine hands its records in as their JSON text. */
const toRecord = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as DeliveryRecord;

/** Memory stores whose batches are recorded (the delivery records in each) and can be made to fail. */
function recordingStores(refuse: (ops: readonly BatchOp[]) => boolean) {
  const data = toStorage(memoryDriver());
  const groups: DeliveryRecord[][] = [];
  const stores: Stores = {
    kind: "memory",
    data,
    media: toStorage(memoryDriver()),
    async batch(ops) {
      const deliveries = ops.filter((op): op is { key: string; value: unknown } => op.key.startsWith("webhooks:deliveries:") && "value" in op).map((op) => toRecord(op.value));
      if (refuse(ops)) throw new Error("storage refused the batch");
      if (deliveries.length > 0) groups.push(deliveries);
      await applyInOrder(data, ops);
    },
    dispose: async () => {},
  };
  return { stores, groups };
}

/** A receiver that answers challenges at once and holds the first `hold` other requests until released. */
function heldReceiver(hold: number) {
  const answered: string[] = [];
  const held: { id: string; release: () => void }[] = [];
  let arrived: () => void = () => {};
  const fetch: FetchLike = async (_url, init) => {
    const body = JSON.parse(String(init.body));
    if (body.type === "webhook.verification") return new Response(JSON.stringify({ challenge: body.data.challenge }), { status: 200 });
    if (held.length >= hold) {
      answered.push(new Headers(init.headers).get("webhook-id")!);
      return new Response("{}", { status: 200 });
    }
    await new Promise<void>((release) => {
      held.push({ id: new Headers(init.headers).get("webhook-id")!, release });
      arrived();
    });
    return new Response("{}", { status: 200 });
  };
  const waitFor = (count: number) => new Promise<void>((resolve) => (arrived = () => held.length >= count && resolve()));
  return { fetch, held, answered, waitFor };
}

async function boot(stores: Stores, fetch: FetchLike, errors: string[]) {
  const clock = createManualClock("2026-05-01T08:00:00.000Z");
  const scheduler = createManualScheduler(clock);
  const core = await createCore({ stores, clock, fetch, scheduler, retrySchedule: [0, 1000], publicUrl: () => "http://lp.test", webhooks: { onError: (what, error) => errors.push(`${what}: ${(error as Error).message}`) } });
  const creds = await ensureDevCredentials(core.database, clock, core.ids);
  const endpoint = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: "https://r.example/hook", events: ["product.created"] }));
  const deliveries = async () => (await core.webhooks.endpoints.deliveries(creds.application_id, endpoint.id, deliveryListSchema.parse({}))).data;
  return { core, creds, scheduler, deliveries };
}

describe("delivery records: group commit (memory)", () => {
  it("attempts that finish together are stored in one batch, each reported only after it", async () => {
    const { stores, groups } = recordingStores(() => false);
    const receiver = heldReceiver(4);
    const errors: string[] = [];
    const { core, creds, deliveries } = await boot(stores, receiver.fetch, errors);
    const arrived = receiver.waitFor(4);
    for (let i = 0; i < 4; i++) await core.products.create(creds.account_id, { title: `Lamp ${i}`, price: 1, product_type: "service" });
    await arrived;
    groups.length = 0;
    // Nothing is recorded while the answers are outstanding.
    expect((await deliveries()).map((d) => d.status)).toEqual(["pending", "pending", "pending", "pending"]);

    for (const request of receiver.held) request.release();
    await core.onIdle();
    expect(groups).toHaveLength(1);
    expect(groups[0].map((d) => d.id).sort()).toEqual(receiver.held.map((r) => r.id).sort());
    expect(groups[0].every((d) => d.status === "succeeded" && d.attempts.length === 1)).toBe(true);
    expect((await deliveries()).map((d) => d.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    expect(await stores.data.getKeys("webhooks:pending")).toEqual([]);
    expect(await stores.data.getKeys("webhooks:outbox")).toEqual([]);
    expect(errors).toEqual([]);
    await core.close();
  });

  it("events emitted together share their group commits: one batch of outbox entries, one of their deliveries", async () => {
    const batches: BatchOp[][] = [];
    const { stores } = recordingStores((ops) => {
      batches.push([...ops]);
      return false;
    });
    const receiver = heldReceiver(0);
    const errors: string[] = [];
    const { core, creds, deliveries } = await boot(stores, receiver.fetch, errors);
    batches.length = 0;
    await Promise.all(Array.from({ length: 6 }, (_, i) => core.webhooks.sink.emit({ type: "product.created", account_id: creds.account_id, data: { id: `prod_${i}`, title: `Lamp ${i}` } })));
    await core.onIdle();

    const outboxPuts = batches.map((ops) => ops.filter((op) => op.key.startsWith("webhooks:outbox:") && "value" in op).length);
    const pendingMade = batches.map((ops) => ops.filter((op) => "value" in op && toRecord(op.value).status === "pending").length);
    expect(Math.max(...outboxPuts)).toBe(6);
    expect(Math.max(...pendingMade)).toBe(6);
    // Each caller's writes are a chain of their own in the batch: the store may apply them side by side.
    const grouped = batches.find((ops) => ops.filter((op) => op.key.startsWith("webhooks:outbox:")).length === 6)!;
    expect(new Set(grouped.map((op) => op.chain)).size).toBe(6);
    expect(receiver.answered).toHaveLength(6);
    expect((await deliveries()).map((d) => d.status)).toEqual(Array(6).fill("succeeded"));
    expect(await stores.data.getKeys("webhooks:outbox")).toEqual([]);
    expect(errors).toEqual([]);
    await core.close();
  });

  it("a batch that fails fails each of its attempts, and those deliveries are sent again, not lost", async () => {
    let refusals = 0;
    const { stores } = recordingStores((ops) => {
      const settles = ops.some((op) => "value" in op && toRecord(op.value).status === "succeeded");
      return settles && refusals++ === 0;
    });
    const receiver = heldReceiver(2);
    const errors: string[] = [];
    const { core, creds, scheduler, deliveries } = await boot(stores, receiver.fetch, errors);
    const arrived = receiver.waitFor(2);
    for (let i = 0; i < 2; i++) await core.products.create(creds.account_id, { title: `Lamp ${i}`, price: 1, product_type: "service" });
    await arrived;
    for (const request of receiver.held) request.release();
    await core.onIdle();

    // Both outcomes were in the refused batch: neither is recorded, both failed loudly, both still pending.
    expect(errors).toHaveLength(2);
    expect(errors.every((line) => line.includes("storage refused the batch"))).toBe(true);
    expect((await deliveries()).map((d) => [d.status, d.attempts.length])).toEqual([["pending", 0], ["pending", 0]]);
    expect(receiver.answered).toEqual([]);

    await scheduler.advanceAsync(1500, () => core.onIdle());
    // Sent again with the same webhook-id, and now recorded.
    expect([...receiver.answered].sort()).toEqual(receiver.held.map((r) => r.id).sort());
    expect((await deliveries()).map((d) => [d.status, d.attempts.length])).toEqual([["succeeded", 1], ["succeeded", 1]]);
    expect(await stores.data.getKeys("webhooks:outbox")).toEqual([]);
    await core.close();
  });
});
