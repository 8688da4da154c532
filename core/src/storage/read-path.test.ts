import memoryDriver from "unstorage/drivers/memory";
import { describe, expect, it } from "vitest";
import { createStorage } from "unstorage";
import { readText, toStorage } from "./create-storage.js";
import { driverCases } from "./driver-cases.fixture.js";

const drivers = driverCases("read-path");

// `getItem` skips unstorage's key rewriting for keys already in normal form: these pin that it answers
// exactly as unstorage does for every kind of key.
describe.each(drivers)("getItem's direct read (%s)", (_name, make) => {
  it("reads records, plain strings and missing keys as unstorage does", async () => {
    const storage = toStorage(make());
    await storage.setItem("acct:a1:products:p-1.x", { n: 1, title: "__proto__ is text" });
    await storage.setItem("note", "plain text");
    await storage.setItem("flag", true);
    expect(await storage.getItem("acct:a1:products:p-1.x")).toEqual({ n: 1, title: "__proto__ is text" });
    expect(await storage.getItem("note")).toBe("plain text");
    expect(await storage.getItem("flag")).toBe(true);
    expect(await storage.getItem("acct:a1:products:missing")).toBeNull();
  });

  it("normalises other spellings of a key to the same record", async () => {
    const storage = toStorage(make());
    await storage.setItem("a:b:c", { v: 2 });
    for (const spelling of ["a/b/c", ":a:b:c:", "a::b:c", "a:b:c?x=1"]) expect(await storage.getItem(spelling), spelling).toEqual({ v: 2 });
  });

  it("refuses dot segments and empty keys with a rejection, never a synchronous throw", async () => {
    const storage = toStorage(make());
    for (const key of ["a:..:b", "..", ""]) {
      let read: Promise<unknown> | undefined;
      expect(() => (read = storage.getItem(key))).not.toThrow();
      await expect(read!).rejects.toThrow();
    }
  });

  it("sees a write made after a read of the same key", async () => {
    const storage = toStorage(make());
    await storage.setItem("k:1", { v: 1 });
    expect(await storage.getItem("k:1")).toEqual({ v: 1 });
    await storage.setItem("k:1", { v: 2 });
    expect(await storage.getItem("k:1")).toEqual({ v: 2 });
    await storage.removeItem("k:1");
    expect(await storage.getItem("k:1")).toBeNull();
  });
});

describe("getItem's direct read with a driver that throws", () => {
  it("turns a synchronous throw of the driver into a rejection", async () => {
    const storage = toStorage({
      ...memoryDriver(),
      getItem() {
        throw new Error("driver down");
      },
    });
    let read: Promise<unknown> | undefined;
    expect(() => (read = storage.getItem("a:b"))).not.toThrow();
    await expect(read!).rejects.toThrow("driver down");
  });
});

describe.each(drivers)("readText (%s)", (_name, make) => {
  it("answers the stored JSON text of a record, null for a missing key, and sees every write", async () => {
    const storage = toStorage(make());
    await storage.setItem("acct:a1:products:p1", { n: 1, title: "Lamp" });
    const text = await readText(storage, "acct:a1:products:p1");
    expect(text).toBe(JSON.stringify({ n: 1, title: "Lamp" }));
    expect(await readText(storage, "acct:a1:products:none")).toBeNull();
    await storage.setItem("acct:a1:products:p1", { n: 2 });
    expect(JSON.parse((await readText(storage, "acct:a1:products:p1"))!)).toEqual({ n: 2 });
    await storage.removeItem("acct:a1:products:p1");
    expect(await readText(storage, "acct:a1:products:p1")).toBeNull();
  });

  it("takes unstorage's path for other spellings, and refuses dot segments with a rejection", async () => {
    const storage = toStorage(make());
    await storage.setItem("a:b:c", { v: 2 });
    expect(JSON.parse((await readText(storage, "a/b/c"))!)).toEqual({ v: 2 });
    let read: Promise<unknown> | undefined;
    expect(() => (read = readText(storage, "a:..:b"))).not.toThrow();
    await expect(read!).rejects.toThrow();
  });
});

describe("readText on a storage not made by toStorage", () => {
  it("serialises the parsed item again", async () => {
    const storage = createStorage({ driver: memoryDriver() });
    await storage.setItem("k:1", { v: [1, 2] });
    expect(await readText(storage, "k:1")).toBe('{"v":[1,2]}');
    expect(await readText(storage, "k:2")).toBeNull();
  });
});
