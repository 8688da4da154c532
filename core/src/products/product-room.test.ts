import type { Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import { createStores, type BatchOp, type Stores } from "../storage/create-storage.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import { productListSchema } from "./products-service.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const png = (size: number) => ({ filename: "p.png", bytes: Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]) });
const body = (title: string) => ({ title, price: 5, product_type: "physical" as const });
const PRODUCTS = "acct:shop:products:";

/** A write of a product record that reached the store and waits there until the test lets it through or refuses it. */
interface Held {
  key: string;
  pass(): void;
  refuse(error: Error): void;
}

/**
 * `stores` whose writes of the shop's product records (one by one or in a batch) are held at the store, as a
 * commit that has not come back yet. `arrived(n)` resolves once n such writes are held.
 */
function gatedStores(stores: Stores) {
  const held: Held[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const hold = <T>(keys: string[], write: () => Promise<T>): Promise<T> => {
    const key = keys.find((k) => k.startsWith(PRODUCTS));
    if (!key) return write();
    return new Promise<void>((pass, refuse) => {
      held.push({ key, pass, refuse });
      for (const w of waiters.filter((w) => held.length >= w.n)) w.resolve();
    }).then(write);
  };
  const data = Object.create(stores.data) as Storage;
  data.setItem = ((key: string, value: never, opts?: never) => hold([key], () => stores.data.setItem(key, value, opts))) as Storage["setItem"];
  const gated: Stores = { ...stores, data, batch: (ops: readonly BatchOp[], fence) => hold(ops.map((op) => op.key), () => stores.batch(ops, fence)) };
  const arrived = (n: number) => new Promise<void>((resolve) => (held.length >= n ? resolve() : waiters.push({ n, resolve })));
  return { stores: gated, held, arrived };
}

const outcome = (r: PromiseSettledResult<unknown>) => (r.status === "fulfilled" ? "created" : (r.reason as { code: string }).code);

/** `calls` started at once, and a promise that resolves once `n` of them were refused (whatever else is pending). */
function refusedOnce(calls: Promise<unknown>[], n: number) {
  let refused = 0;
  let done!: () => void;
  const reached = new Promise<void>((resolve) => (done = resolve));
  for (const call of calls) call.catch(() => ++refused === n && done());
  return reached;
}

describe.each(["memory", "sqlite"] as const)("quota shares without the lock across the commit (%s)", (kind) => {
  const opened: Array<{ core: Core; stores: Stores }> = [];
  const temp = useTempDirs(async () => {
    for (const { core, stores } of opened.splice(0)) {
      await core.close();
      await stores.dispose();
    }
  });

  async function open(quotas: { product_quota?: number; media_quota_bytes?: number }) {
    const gate = gatedStores(createStores(kind, kind === "sqlite" ? temp("room") : undefined));
    const core = await createCore({ stores: gate.stores, clock: createManualClock("2026-05-01T00:00:00.000Z"), publicUrl: () => "http://lp.test" });
    opened.push({ core, stores: gate.stores });
    await core.accounts.create({ account_id: "shop", environment: "production", currency: "USD", page_quota: 100, product_quota: 100, media_quota_bytes: 10_000, ...quotas });
    return { core, ...gate };
  }
  const count = async (core: Core) => (await core.products.list("shop", productListSchema.parse({ per_page: "100" }))).data.length;

  it("lets creates into one account reach the store while an earlier one's commit has not come back", async () => {
    const { core, held, arrived } = await open({});
    const creates = [core.products.create("shop", body("A")), core.products.create("shop", body("B"))];
    // Both writes are at the store and neither has come back: no lock orders them across the commit.
    await arrived(2);
    for (const h of held) h.pass();
    expect((await Promise.all(creates)).map((p) => p.title)).toEqual(["A", "B"]);
    expect(await count(core)).toBe(2);
  });

  it("at a quota of 3, lets exactly 3 of 8 concurrent creates in, refusing 5 while the 3 commits are held", async () => {
    const { core, held, arrived } = await open({ product_quota: 3 });
    const creates = Array.from({ length: 8 }, (_, i) => core.products.create("shop", body(`P${i}`)));
    await Promise.all([arrived(3), refusedOnce(creates, 5)]);
    // The refusals counted the three shares reserved, not yet stored.
    expect(held).toHaveLength(3);
    expect(await count(core)).toBe(0);
    for (const h of held) h.pass();
    const results = await Promise.allSettled(creates);
    expect(results.map(outcome).sort()).toEqual([...Array(3).fill("created"), ...Array(5).fill("quota_exceeded")]);
    for (const r of results) if (r.status === "rejected") expect((r.reason as { details: unknown }).details).toEqual({ quota: "products", limit: 3, used: 3 });
    expect(await count(core)).toBe(3);
    await expect(core.products.create("shop", body("late"))).rejects.toMatchObject({ code: "quota_exceeded" });
  });

  it("counts upload bytes reserved by creates and edits under way against the media quota", async () => {
    const { core, held, arrived } = await open({ media_quota_bytes: 1000 });
    const first = core.products.create("shop", body("first"));
    await arrived(1);
    held[0].pass();
    const { id } = await first;
    const writes = [core.products.create("shop", body("A"), [png(400)]), core.products.update("shop", id, {}, [png(400)]), core.products.create("shop", body("B"), [png(400)])];
    await Promise.all([arrived(3), refusedOnce(writes, 1)]);
    expect(held).toHaveLength(3);
    for (const h of held.slice(1)) h.pass();
    const results = await Promise.allSettled(writes);
    // Which of the three is refused depends on the order their checks ran in; exactly one is.
    expect(results.map(outcome).sort()).toEqual(["created", "created", "quota_exceeded"]);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
    expect(refused.reason.details).toEqual({ quota: "media_bytes", limit: 1000, used: 800, requested: 400 });
    await expect(core.products.update("shop", id, {}, [png(201)])).rejects.toMatchObject({ code: "quota_exceeded", details: { used: 800 } });
  });

  it("frees the share of a write the store refuses, so the next write takes it", async () => {
    const { core, held, arrived } = await open({ product_quota: 1, media_quota_bytes: 500 });
    const refused = core.products.create("shop", body("refused"), [png(500)]);
    await arrived(1);
    held[0].refuse(Object.assign(new Error("ENOSPC: injected"), { code: "ENOSPC" }));
    await expect(refused).rejects.toThrow();
    const next = core.products.create("shop", body("next"), [png(500)]);
    await arrived(2);
    held[1].pass();
    expect((await next).title).toBe("next");
    expect(await count(core)).toBe(1);
  });
});
