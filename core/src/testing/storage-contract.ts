import type { Driver, Storage } from "unstorage";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toStorage } from "../storage/create-storage.js";

/** A driver under test, with the hooks some capabilities need. */
export interface DriverFixture {
  driver: Driver;
  /** A second driver over the same data, as a restarted process would open it. */
  reopen?: () => Driver;
  /** Leaves what a write killed half-way would leave behind (a temporary file). */
  plantLeftover?: () => Promise<void>;
  dispose(): Promise<void>;
}

/**
 * What a driver offers beyond the common contract. `true` runs the tests of that capability; a string
 * says why the driver lacks it, and the tests are reported as skipped with that reason.
 */
export interface DriverCapabilities {
  /** The driver itself refuses keys that could escape its base (`..`, empty segments). */
  refusesUnsafeKeys: true | string;
  /** `driver.getKeys(prefix)` returns only keys starting with the prefix, even one ending mid-segment. */
  filtersKeysByPrefix: true | string;
  /** Data survives closing the driver and opening it again. */
  persistent: true | string;
  /** Crash leftovers never show up as keys. */
  hidesLeftovers: true | string;
  /** A key can hold a value and also be the prefix of other keys (`a:b` and `a:b:c`). */
  leafAndPrefix: true | string;
}

const BIG = { text: "x".repeat(256 * 1024), list: Array.from({ length: 500 }, (_, i) => ({ i, s: `item ${i}` })) };

/**
 * The contract every storage driver of lp must meet, run through the same `toStorage` wrapper the app
 * uses. Call it once per driver from a test file.
 */
export function testStorageDriver(name: string, factory: () => DriverFixture | Promise<DriverFixture>, capabilities: DriverCapabilities) {
  const when = (cap: keyof DriverCapabilities, title: string, fn: () => Promise<void>) => {
    const flag = capabilities[cap];
    if (flag === true) it(title, fn);
    else it.skip(`${title} (not supported: ${flag})`, fn);
  };

  describe(`storage driver contract: ${name}`, () => {
    let fixture: DriverFixture;
    let storage: Storage;
    beforeEach(async () => {
      fixture = await factory();
      storage = toStorage(fixture.driver);
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it("sets, gets, tests and removes an item", async () => {
      expect(await storage.hasItem("a:b")).toBe(false);
      expect(await storage.getItem("a:b")).toBeNull();
      await storage.setItem("a:b", { n: 1 });
      expect(await storage.hasItem("a:b")).toBe(true);
      expect(await storage.getItem("a:b")).toEqual({ n: 1 });
      await storage.setItem("a:b", { n: 2 });
      expect(await storage.getItem("a:b")).toEqual({ n: 2 });
      await storage.removeItem("a:b");
      expect(await storage.hasItem("a:b")).toBe(false);
      expect(await storage.getItem("a:b")).toBeNull();
      await storage.removeItem("a:b");
      await storage.removeItem("never:there");
    });

    it("round-trips objects and plain strings", async () => {
      const value = { s: "héllo ✓ \u0000 \"quoted\"", n: -1.5, z: 0, t: true, nil: null, list: [1, "2", { three: 3 }], nested: { deep: { er: [] } } };
      await storage.setItem("obj", value);
      expect(await storage.getItem("obj")).toEqual(value);
      await storage.setItem("big", BIG);
      expect(await storage.getItem("big")).toEqual(BIG);
      await storage.setItem("str", "plain text");
      expect(await storage.getItem("str")).toBe("plain text");
    });

    it("round-trips raw bytes, every byte value included", async () => {
      const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
      await storage.setItemRaw("media:a:b.png", bytes);
      const back = await storage.getItemRaw("media:a:b.png");
      expect(Buffer.from(back as Uint8Array).equals(bytes)).toBe(true);
      expect(await storage.getItemRaw("media:a:missing.png")).toBeNull();
      const large = Buffer.alloc(3 * 1024 * 1024 + 7, 0xab);
      await storage.setItemRaw("media:a:large.png", large);
      expect(Buffer.from((await storage.getItemRaw("media:a:large.png")) as Uint8Array).equals(large)).toBe(true);
      expect(await storage.hasItem("media:a:large.png")).toBe(true);
    });

    it("lists keys under a prefix, by whole segments", async () => {
      for (const key of ["acct:a:products:1", "acct:a:products:2", "acct:a:productsx:3", "acct:b:products:4", "tokens:t"]) {
        await storage.setItem(key, { key });
      }
      expect((await storage.getKeys()).sort()).toEqual(["acct:a:products:1", "acct:a:products:2", "acct:a:productsx:3", "acct:b:products:4", "tokens:t"]);
      expect((await storage.getKeys("acct:a:products")).sort()).toEqual(["acct:a:products:1", "acct:a:products:2"]);
      expect((await storage.getKeys("acct:a:products:")).sort()).toEqual(["acct:a:products:1", "acct:a:products:2"]);
      expect((await storage.getKeys("acct")).length).toBe(4);
      // A prefix ending mid-segment names no segment, so it matches nothing.
      expect(await storage.getKeys("acct:a:prod")).toEqual([]);
      expect(await storage.getKeys("nothing:here")).toEqual([]);
    });

    when("filtersKeysByPrefix", "the driver filters getKeys by a raw prefix, one ending mid-segment too", async () => {
      for (const key of ["acct:a:products:1", "acct:a:productsx:3", "acct:a:pages:9", "acct:b:products:4"]) await storage.setItem(key, {});
      expect((await fixture.driver.getKeys("acct:a:prod", {})).sort()).toEqual(["acct:a:products:1", "acct:a:productsx:3"]);
      expect((await fixture.driver.getKeys("acct:a:products:", {})).sort()).toEqual(["acct:a:products:1"]);
      expect(await fixture.driver.getKeys("zzz", {})).toEqual([]);
    });

    it("clears one prefix, then everything", async () => {
      for (const key of ["p:1:a", "p:1:b", "p:10:a", "q:1"]) await storage.setItem(key, { key });
      await storage.setItemRaw("p:1:c.png", Buffer.from([1, 2, 3]));
      await storage.clear("p:1");
      expect((await storage.getKeys()).sort()).toEqual(["p:10:a", "q:1"]);
      await storage.clear();
      expect(await storage.getKeys()).toEqual([]);
    });

    it("refuses path traversal keys through the storage", async () => {
      for (const key of ["..", "a:..:b", "../etc/passwd", "a/../../b", ".:x"]) {
        await expect(storage.setItem(key, { bad: true }), key).rejects.toThrow();
        await expect(storage.getItem(key), key).rejects.toThrow();
      }
      expect(await storage.getKeys()).toEqual([]);
    });

    when("refusesUnsafeKeys", "the driver refuses unsafe keys given to it directly", async () => {
      const d = fixture.driver;
      for (const key of ["..", "a:..:b", "a::b", ":a", "a:", "", ".", "a:.:b", "a/b", "a\\b", "a:b c", ".tmp:x"]) {
        await expect(Promise.resolve().then(() => d.setItem!(key, "{}", {})), JSON.stringify(key)).rejects.toThrow();
      }
      expect(await storage.getKeys()).toEqual([]);
    });

    it("leaves a complete value after concurrent writes to one key", async () => {
      const values = Array.from({ length: 40 }, (_, i) => ({ writer: i, ...BIG }));
      const reads: unknown[] = [];
      await Promise.all([
        ...values.map((v) => storage.setItem("hot", v)),
        ...values.map(async () => reads.push(await storage.getItem("hot"))),
      ]);
      const final = (await storage.getItem<{ writer: number }>("hot"))!;
      expect(final).toEqual(values[final.writer]);
      for (const read of reads) if (read !== null) expect(read).toEqual(values[(read as { writer: number }).writer]);
    });

    when("leafAndPrefix", "a key can be a value and the prefix of others", async () => {
      await storage.setItem("a:b", { leaf: true });
      await storage.setItem("a:b:c", { child: true });
      expect(await storage.getItem("a:b")).toEqual({ leaf: true });
      expect(await storage.getItem("a:b:c")).toEqual({ child: true });
    });

    it("reads a prefix folder or a path below a value as missing", async () => {
      await storage.setItem("f:g:h", { v: 1 });
      expect(await storage.hasItem("f:g")).toBe(false);
      expect(await storage.getItem("f:g")).toBeNull();
      expect(await storage.getItem("f:g:h:i")).toBeNull();
      expect(await storage.hasItem("f:g:h:i")).toBe(false);
    });

    when("persistent", "keeps data across a reopen", async () => {
      await storage.setItem("keep:me", { v: 1 });
      await storage.setItemRaw("keep:raw.bin", Buffer.from([0, 255]));
      const again = toStorage(fixture.reopen!());
      expect(await again.getItem("keep:me")).toEqual({ v: 1 });
      expect(Buffer.from((await again.getItemRaw("keep:raw.bin")) as Uint8Array)).toEqual(Buffer.from([0, 255]));
      expect((await again.getKeys()).sort()).toEqual(["keep:me", "keep:raw.bin"]);
    });

    when("hidesLeftovers", "never lists temporary leftovers of an interrupted write", async () => {
      await storage.setItem("real:one", { v: 1 });
      await fixture.plantLeftover!();
      expect(await storage.getKeys()).toEqual(["real:one"]);
      const again = toStorage(fixture.reopen!());
      expect(await again.getKeys()).toEqual(["real:one"]);
      await again.clear();
      expect(await again.getKeys()).toEqual([]);
    });
  });
}
