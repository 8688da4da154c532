import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCore } from "../core.js";
import { createManualClock } from "../deps.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createStores } from "../storage/create-storage.js";
import { productListSchema } from "./products-service.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function open(dir: string, events: DomainEvent[] = []) {
  const stores = createStores("sqlite", dir);
  const clock = createManualClock();
  const core = await createCore({ stores, clock, publicUrl: () => "http://lp.test", events: { emit: async (e) => void events.push(e) } });
  return { core, clock, stores };
}

describe("products service over SQLite", () => {
  it("rebuilds its list index from disk after a restart, without deleted products", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-products-"));
    dirs.push(dir);
    const first = await open(dir);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push((await first.core.products.create("acct_a", { title: `P${i}`, price: i, product_type: "physical" })).id);
      first.clock.advance(1000);
    }
    await first.core.products.create("acct_b", { title: "Other", price: 1, product_type: "service" });
    await first.core.products.remove("acct_a", ids[5]);
    await first.core.products.update("acct_a", ids[7], { price: 1000 });
    const before = await first.core.products.list("acct_a", productListSchema.parse({ per_page: "100", sort: "-price" }));
    await first.core.onIdle();
    await first.stores.dispose();

    const second = await open(dir);
    const after = await second.core.products.list("acct_a", productListSchema.parse({ per_page: "100", sort: "-price" }));
    expect(after.data).toEqual(before.data);
    expect(after.data).toHaveLength(29);
    expect(after.data[0].id).toBe(ids[7]);
    expect(after.data.map((p) => p.id)).not.toContain(ids[5]);
    expect((await second.core.products.list("acct_b", productListSchema.parse({}))).data.map((p) => p.title)).toEqual(["Other"]);
    await second.stores.dispose();
  });

  it("emits product events with the product as the API shows it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-products-"));
    dirs.push(dir);
    const events: DomainEvent[] = [];
    const { core, stores } = await open(dir, events);
    const p = await core.products.create("acct_a", { title: "Lamp", price: 1, product_type: "physical" });
    await core.products.update("acct_a", p.id, { title: "Lamp 2" });
    await core.products.remove("acct_a", p.id);
    expect(events.map((e) => [e.type, e.account_id, (e.data as { title: string }).title])).toEqual([
      ["product.created", "acct_a", "Lamp"],
      ["product.updated", "acct_a", "Lamp 2"],
      ["product.deleted", "acct_a", "Lamp 2"],
    ]);
    expect(events[0].data).toEqual(p);
    await expect(core.products.get("acct_a", p.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await core.products.readAny("acct_a", p.id)).toMatchObject({ deleted_at: expect.any(String) });
    await stores.dispose();
  });
});

describe.each(["memory", "sqlite"] as const)("getJson (%s)", (kind) => {
  it("answers get's product as JSON, following every write to the record, the public URL and deletion", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lp-products-"));
    dirs.push(dir);
    const stores = createStores(kind, dir);
    let url = "http://lp.test";
    const core = await createCore({ stores, clock: createManualClock(), publicUrl: () => url, events: { emit: async () => {} } });
    const p = await core.products.create("acct_a", { title: "Lamp", price: 1, product_type: "physical" });
    const same = async () => expect(await core.products.getJson("acct_a", p.id)).toBe(JSON.stringify(await core.products.get("acct_a", p.id)));
    await same();
    await same();
    await core.products.update("acct_a", p.id, { title: "Lamp 2" });
    await same();
    expect(JSON.parse(await core.products.getJson("acct_a", p.id)).title).toBe("Lamp 2");
    // Another process of a shared store writes the record: the next read answers with its text.
    const key = `acct:acct_a:products:${p.id}`;
    await stores.data.setItem(key, { ...(await stores.data.getItem<Record<string, unknown>>(key)), price: 99 });
    expect(JSON.parse(await core.products.getJson("acct_a", p.id)).price).toBe(99);
    url = "http://other.test";
    expect(JSON.parse(await core.products.getJson("acct_a", p.id)).preview_image_url).toMatch(/^http:\/\/other\.test\/media\/placeholders\//);
    await same();
    await core.products.remove("acct_a", p.id);
    await expect(core.products.getJson("acct_a", p.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(core.products.getJson("acct_a", "not-a-uuid")).rejects.toMatchObject({ code: "not_found" });
    await expect(core.products.getJson("acct_b", p.id)).rejects.toMatchObject({ code: "not_found" });
    await stores.dispose();
  });
});
