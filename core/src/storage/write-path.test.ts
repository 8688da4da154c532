import memoryDriver from "unstorage/drivers/memory";
import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createStores, toStorage, type BatchOp } from "./create-storage.js";
import { driverCases } from "./driver-cases.fixture.js";

const drivers = driverCases("write-path");

class Stamp {
  constructor(readonly at: string) {}
  toJSON() {
    return { stamped: this.at };
  }
}

// Values of every kind unstorage serialises: plain objects and arrays (the direct path), strings, and the
// ones left to unstorage (numbers, booleans, Dates and other objects with toJSON).
const values: [string, unknown][] = [
  ["a record", { id: "p1", title: "Lamp \u00e9", tags: ["a", "b"], nested: { n: 1, none: null } }],
  ["a null-prototype object", Object.assign(Object.create(null), { v: 1 })],
  ["an array", [1, "two", { three: 3 }]],
  ["a string", "plain text"],
  ["a number", 42],
  ["a boolean", false],
  ["a Date", new Date("2026-05-01T08:00:00.000Z")],
  ["an object with toJSON", new Stamp("now")],
];

// `setItem` and `removeItem` skip unstorage's key rewriting for keys in normal form: these pin that the
// driver receives exactly what unstorage would hand it, for every kind of value and key.
describe.each(drivers)("the direct write (%s)", (_name, make) => {
  it.each(values)("stores %s as the same text unstorage stores", async (_what, value) => {
    const driver = make();
    const storage = toStorage(driver);
    const reference = createStorage({ driver: memoryDriver() });
    await storage.setItem("acct:a1:things:t-1.x", value as never);
    await reference.setItem("acct:a1:things:t-1.x", value as never);
    expect(await driver.getItem("acct:a1:things:t-1.x", {})).toBe(await reference.getItemRaw("acct:a1:things:t-1.x"));
    expect(await storage.getItem("acct:a1:things:t-1.x")).toEqual(await reference.getItem("acct:a1:things:t-1.x"));
  });

  it("stores a copy: changing the object afterwards changes nothing stored", async () => {
    const storage = toStorage(make());
    const record = { id: "d1", attempts: [{ n: 1 }] };
    await storage.setItem("webhooks:deliveries:e1:d1", record);
    record.attempts.push({ n: 2 });
    record.id = "changed";
    expect(await storage.getItem("webhooks:deliveries:e1:d1")).toEqual({ id: "d1", attempts: [{ n: 1 }] });
  });

  it("writes and removes other spellings of a key under its normal form", async () => {
    const storage = toStorage(make());
    await storage.setItem("a/b/c", { v: 1 });
    expect(await storage.getItem("a:b:c")).toEqual({ v: 1 });
    await storage.removeItem(":a:b:c:");
    expect(await storage.getItem("a:b:c")).toBeNull();
  });

  it("treats an undefined value as a removal", async () => {
    const storage = toStorage(make());
    await storage.setItem("k:1", { v: 1 });
    await storage.setItem("k:1", undefined as never);
    expect(await storage.getItem("k:1")).toBeNull();
    expect(await storage.hasItem("k:1")).toBe(false);
  });

  it("refuses dot segments and empty keys with a rejection, never a synchronous throw", async () => {
    const storage = toStorage(make());
    for (const key of ["a:..:b", "..", ""]) {
      let write: Promise<unknown> | undefined;
      expect(() => (write = storage.setItem(key, { v: 1 }))).not.toThrow();
      await expect(write!).rejects.toThrow();
      expect(() => (write = storage.removeItem(key))).not.toThrow();
      await expect(write!).rejects.toThrow();
    }
  });
});

describe("the direct write with a driver that throws", () => {
  it("turns a synchronous throw of the driver into a rejection", async () => {
    const storage = toStorage({
      ...memoryDriver(),
      setItem() {
        throw new Error("disk full");
      },
      removeItem() {
        throw new Error("read-only");
      },
    });
    let write: Promise<unknown> | undefined;
    expect(() => (write = storage.setItem("a:b", { v: 1 }))).not.toThrow();
    await expect(write!).rejects.toThrow("disk full");
    expect(() => (write = storage.removeItem("a:b"))).not.toThrow();
    await expect(write!).rejects.toThrow("read-only");
  });
});

describe("the direct write with a watcher", () => {
  it("tells a watcher of every write and removal once one watches", async () => {
    const storage = toStorage(memoryDriver());
    const seen: string[] = [];
    await storage.watch((event, key) => void seen.push(`${event} ${key}`));
    await storage.setItem("a:b", { v: 1 });
    await storage.removeItem("a:b");
    expect(seen).toEqual(["update a:b", "remove a:b"]);
  });
});

describe("a batch on the memory store", () => {
  const ops: BatchOp[] = [
    { key: "webhooks:deliveries:e1:d1", value: { id: "d1", status: "pending" } },
    { key: "webhooks:outbox:evt1", value: { id: "evt1" } },
    { key: "webhooks:deliveries:e1:d1", value: { id: "d1", status: "succeeded" } },
    { key: "webhooks:outbox:evt1", remove: true },
  ];

  it("applies its ops in order, as one write after another would", async () => {
    const stores = createStores("memory");
    await stores.batch(ops);
    expect(await stores.data.getItem("webhooks:deliveries:e1:d1")).toEqual({ id: "d1", status: "succeeded" });
    expect(await stores.data.hasItem("webhooks:outbox:evt1")).toBe(false);
    expect(await stores.data.getKeys("webhooks")).toEqual(["webhooks:deliveries:e1:d1"]);
  });

  it("applies a batch with other key spellings and non-plain values as unstorage does", async () => {
    const stores = createStores("memory");
    await stores.batch([{ key: "a/b", value: new Date("2026-05-01T08:00:00.000Z") }, { key: "a:c", value: { v: 1 } }, { key: ":a:c:", remove: true }]);
    expect(await stores.data.getItem("a:b")).toBe("2026-05-01T08:00:00.000Z");
    expect(await stores.data.hasItem("a:c")).toBe(false);
  });

  it("tells a watcher of each of its writes once one watches", async () => {
    const stores = createStores("memory");
    const seen: string[] = [];
    await stores.data.watch((event, key) => void seen.push(`${event} ${key}`));
    await stores.batch(ops.slice(0, 2));
    expect(seen).toEqual(["update webhooks:deliveries:e1:d1", "update webhooks:outbox:evt1"]);
  });
});
