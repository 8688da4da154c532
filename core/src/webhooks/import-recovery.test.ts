import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import { createStores, type StorageKind } from "../storage/create-storage.js";
import type { FetchLike } from "./http-attempt.js";
import type { DeliveryRecord } from "./records.js";
import { createManualScheduler } from "./scheduler.js";
import { endpointCreateSchema } from "./schemas.js";

const receiver: FetchLike = async (_url, init) => {
  const body = JSON.parse(String(init.body));
  if (body.type === "webhook.verification") return new Response(JSON.stringify({ challenge: body.data.challenge }), { status: 200 });
  return new Response("{}", { status: 200 });
};

/*
 * An export taken while a fan-out is under way holds the event's outbox entry without its deliveries. Its
 * import picks that fan-out up in the background; `core.onIdle()` must cover it to the end, the delivery
 * records' group commit and the removal of the outbox entry after it included, or a caller that waited
 * for idle (a test, a drain) would see those writes land later.
 */
describe.each<StorageKind>(["memory", "sqlite"])("an import holding an unfinished fan-out (%s)", (kind) => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is fanned out again, and onIdle resolves only once its delivery is stored and its outbox entry gone", async () => {
    const dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-import-fanout-")) : undefined;
    if (dir) dirs.push(dir);
    const stores = createStores(kind, dir);
    const clock = createManualClock("2026-05-01T08:00:00.000Z");
    const core = await createCore({ stores, clock, fetch: receiver, scheduler: createManualScheduler(clock), publicUrl: () => "http://lp.test" });
    const creds = await ensureDevCredentials(core.database, clock, core.ids);
    const endpoint = await core.webhooks.endpoints.create(creds.application_id, endpointCreateSchema.parse({ url: "https://r.example/hook", events: ["product.created"] }));
    await core.products.create(creds.account_id, { title: "Lamp", price: 1, product_type: "service" });
    await core.onIdle();

    // The export of the moment the event was recorded and its fan-out had not stored anything yet.
    const doc = await core.admin.export();
    const deliveryKey = Object.keys(doc.records).find((key) => key.startsWith(`webhooks:deliveries:${endpoint.id}:`))!;
    const event = (doc.records[deliveryKey] as DeliveryRecord).payload;
    delete doc.records[deliveryKey];
    doc.records[`webhooks:outbox:${event.id}`] = event;

    await core.admin.import(doc);
    await core.onIdle();
    expect(await stores.data.getKeys("webhooks:outbox")).toEqual([]);
    const stored = (await stores.data.getItem(deliveryKey)) as DeliveryRecord | null;
    expect(stored?.event_id).toBe(event.id);
    expect(stored?.attempts.length).toBe(1);
    await core.close();
    await stores.dispose();
  });
});
