import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createStores, type Stores } from "./create-storage.js";

describe("fs batch: one group commit", () => {
  let dir: string;
  let stores: Stores;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lp-group-"));
    stores = createStores("fs", dir);
  });
  afterEach(async () => {
    await stores.dispose();
    rmSync(dir, { recursive: true, force: true });
  });
  const tmpFiles = () => readdirSync(join(dir, "data", ".tmp"));

  it("applies sets and removals in order, readable at once and by the next start", async () => {
    await stores.data.setItem("webhooks:pending:d1", { id: "d1" });
    await stores.batch([
      { key: "webhooks:deliveries:ep1:d1", value: { id: "d1", status: "succeeded" } },
      { key: "webhooks:pending:d1", remove: true },
      { key: "webhooks:deliveries:ep1:d2", value: { id: "d2", status: "pending" } },
      { key: "webhooks:pending:d2", value: { id: "d2" } },
      { key: "webhooks:deliveries:ep1:d2", value: { id: "d2", status: "failed" } },
    ]);
    expect(await stores.data.getItem("webhooks:deliveries:ep1:d1")).toEqual({ id: "d1", status: "succeeded" });
    expect(await stores.data.getItem("webhooks:deliveries:ep1:d2")).toEqual({ id: "d2", status: "failed" });
    expect(await stores.data.getKeys("webhooks:pending")).toEqual(["webhooks:pending:d2"]);
    expect(tmpFiles()).toEqual([]);

    const next = createStores("fs", dir);
    expect(await next.data.getItem("webhooks:deliveries:ep1:d2")).toEqual({ id: "d2", status: "failed" });
    expect(await next.data.getKeys("webhooks:deliveries:ep1")).toHaveLength(2);
    await next.dispose();
  });

  it("chains are applied side by side: a failing one stops at its failure, the others are applied, the batch rejects", async () => {
    mkdirSync(join(dir, "data", "records", "blocked", "inner"), { recursive: true });
    const batch = stores.batch([
      { key: "records:a1", value: { v: 1 }, chain: 0 },
      { key: "records:blocked", value: { v: 2 }, chain: 0 },
      { key: "records:b1", value: { v: 3 }, chain: 1 },
      { key: "records:a2", value: { v: 4 }, chain: 0 },
      { key: "records:b2", value: { v: 5 }, chain: 1 },
    ]);
    await expect(batch).rejects.toThrow();
    expect(await stores.data.getItem("records:a1")).toEqual({ v: 1 });
    expect(await stores.data.getItem("records:a2")).toBeNull();
    expect(await stores.data.getItem("records:b1")).toEqual({ v: 3 });
    expect(await stores.data.getItem("records:b2")).toEqual({ v: 5 });
    expect(tmpFiles()).toEqual([]);
  });

  it("two chains that touch the same record are applied as one, in the order given", async () => {
    await stores.batch([
      { key: "records:shared", value: { v: "first" }, chain: 0 },
      { key: "records:other", value: { v: 1 }, chain: 1 },
      { key: "records:shared", value: { v: "second" }, chain: 1 },
      { key: "records:shared", remove: true, chain: 2 },
      { key: "records:shared", value: { v: "last" }, chain: 0 },
    ]);
    expect(await stores.data.getItem("records:shared")).toEqual({ v: "last" });
    expect(await stores.data.getItem("records:other")).toEqual({ v: 1 });
    expect(tmpFiles()).toEqual([]);
  });

  it("a write that fails stops the group there: what came before is applied, nothing after, no temporary file left", async () => {
    await stores.data.setItem("records:keep", { v: "old" });
    // A folder where a record should go: its rename fails.
    mkdirSync(join(dir, "data", "records", "blocked", "inner"), { recursive: true });
    const batch = stores.batch([
      { key: "records:first", value: { v: 1 } },
      { key: "records:blocked", value: { v: 2 } },
      { key: "records:keep", value: { v: "new" } },
      { key: "records:gone", value: { v: 3 } },
    ]);
    await expect(batch).rejects.toThrow();
    expect(await stores.data.getItem("records:first")).toEqual({ v: 1 });
    expect(await stores.data.getItem("records:keep")).toEqual({ v: "old" });
    expect(await stores.data.getItem("records:gone")).toBeNull();
    expect(tmpFiles()).toEqual([]);
  });
});
