import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { fillDisk, mountSmallDisk, whySmallDiskUnavailable, type SmallDisk } from "../../core/src/testing/small-disk.js";
import { startServer } from "./serve.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

const noDisk = whySmallDiskUnavailable();
if (noDisk) console.warn(`[lp] skipping the real full and read-only disk tests: ${noDisk}; storage-faults.test.ts covers them with the engine's error injected`);

// While lp serve runs, its database is open for writing, so the kernel refuses `mount -o remount,ro` (EBUSY):
// a data dir turns read-only under a running server only when the kernel forces it after I/O errors, which no
// test can do safely. That case answers 503 read_only like any EROFS (storage-faults.test.ts injects it).
describe.skipIf(noDisk !== null)("a real small disk (tmpfs) that fills up, and is read-only at a start", () => {
  let small: SmallDisk;
  let app: TestApp;
  const lines: string[] = [];
  const filler = () => join(small.dir, "filler");
  const open = () => createTestApp({ dataDir: small.dir, coreDeps: { log: (line) => lines.push(line), every: () => () => {} } });
  beforeAll(async () => {
    small = mountSmallDisk("4m", "0700");
    app = await open();
  });
  afterAll(async () => {
    await app?.close();
    small?.unmount();
  });

  const create = (title: string, headers: Record<string, string> = {}) =>
    app.call("POST", `${app.account}/products`, { body: { title, product_type: "physical", price: 5, description: "x".repeat(2000) }, headers });
  const upload = () => {
    const form = new FormData();
    form.set("title", "Pictured");
    form.set("price", "7");
    form.set("product_type", "physical");
    form.append("images", new Blob([PNG]), "p.png");
    return app.call("POST", `${app.account}/products`, { raw: form });
  };

  it("full: writes answer 507 disk_full within 5 s, uploads too; lists, GETs and replays 200; /healthz degraded; room made, the probe ends it", async () => {
    const kept = await create("Kept", { "idempotency-key": "kept" });
    expect(kept.status).toBe(201);
    fillDisk(filler());
    const started = performance.now();
    const refused = await create("Refused");
    expect(performance.now() - started).toBeLessThan(5000);
    expect(refused.status).toBe(507);
    expect(refused.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
    expect(refused.headers.get("retry-after")).toBe("30");
    // The bytes of an upload are a file of the data dir: the disk refuses them first.
    const pictured = await upload();
    expect(pictured.status).toBe(507);
    expect(pictured.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: { title: string }) => p.title)).toEqual(["Kept"]);
    expect((await app.call("GET", `${app.account}/products/${kept.json.data.id}`)).status).toBe(200);
    // A replay finds its answer and writes nothing: answered on a full disk.
    const replay = await create("Kept", { "idempotency-key": "kept" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "degraded", reason: "disk_full", writes_refused: 2 });
    expect(lines).toEqual([`storage: disk full at ${small.dir} (ENOSPC); writes refused until there is room`]);

    rmSync(filler());
    await app.core.storageHealth.probe();
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .*\(disk full is over; 2 refused in 0 s\)$/);
    expect((await create("After")).status).toBe(201);
    expect((await upload()).status).toBe(201);
  });

  it("a start on a full disk is refused at once, naming the errno; once there is room the dir opens with everything", async () => {
    await app.close();
    fillDisk(filler());
    try {
      const started = performance.now();
      await expect(startServer({ storage: "sqlite", dataDir: small.dir, port: 0, log: null, admin: false })).rejects.toThrow(/ENOSPC/);
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      rmSync(filler());
    }
    app = await open();
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.json.data.map((p: { title: string }) => p.title).sort()).toEqual(["After", "Kept", "Pictured"]);
  });

  it("read-only at start: lp serve refuses with a message naming the errno", async () => {
    await app.close();
    small.remount("ro");
    try {
      await expect(startServer({ storage: "sqlite", dataDir: small.dir, port: 0, log: null, admin: false })).rejects.toThrow(/EROFS/);
    } finally {
      small.remount("rw");
    }
    // Once writable again, the same dir opens with everything it held.
    app = await open();
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.json.data.map((p: { title: string }) => p.title).sort()).toEqual(["After", "Kept", "Pictured"]);
  });
});
