import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { fillDisk, mountSmallDisk, whySmallDiskUnavailable, type SmallDisk } from "../../core/src/testing/small-disk.js";
import { startServer, type RunningServer } from "./serve.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");

const noDisk = whySmallDiskUnavailable();
if (noDisk) console.warn(`[lp] skipping the real full and read-only disk tests: ${noDisk}; storage-faults.test.ts covers them with the engine's error injected`);

// While lp serve runs, its database is open for writing, so the kernel refuses `mount -o remount,ro` (EBUSY):
// a data dir turns read-only under a running server only when the kernel forces it after I/O errors, which no
// test can do safely. That case answers 503 read_only like any EROFS (storage-faults.test.ts injects it).
describe.skipIf(noDisk !== null)("lp serve on a real small disk (tmpfs) that fills up, and is full or read-only at a start", () => {
  let small: SmallDisk;
  let server: RunningServer | null = null;
  const lines: string[] = [];
  const filler = () => join(small.dir, "filler");
  const start = () => startServer({ storage: "sqlite", dataDir: small.dir, port: 0, log: null, admin: false, storageLog: (line) => lines.push(line) });
  beforeAll(async () => {
    small = mountSmallDisk("4m", "0700");
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
    small?.unmount();
  });

  /** A request of the dev account, as a client sends it. */
  async function call(method: string, path: string, init: { body?: unknown; raw?: FormData; headers?: Record<string, string> } = {}) {
    const { url, credentials } = server!;
    const headers: Record<string, string> = { authorization: `Bearer ${credentials.token}`, ...init.headers };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${url}/v1/accounts/${credentials.account_id}${path}`, { method, headers, body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
  }
  const health = async () => (await (await fetch(`${server!.url}/healthz`)).json()) as Record<string, unknown>;
  const create = (title: string, headers: Record<string, string> = {}) => call("POST", "/products", { body: { title, product_type: "physical", price: 5, description: "x".repeat(2000) }, headers });
  const upload = () => {
    const form = new FormData();
    form.set("title", "Pictured");
    form.set("price", "7");
    form.set("product_type", "physical");
    form.append("images", new Blob([PNG]), "p.png");
    return call("POST", "/products", { raw: form });
  };
  const titles = async () => (await call("GET", "/products")).json.data.map((p: { title: string }) => p.title).sort();

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
    expect(await titles()).toEqual(["Kept"]);
    expect((await call("GET", `/products/${kept.json.data.id}`)).status).toBe(200);
    // A replay finds its answer and writes nothing: answered on a full disk.
    const replay = await create("Kept", { "idempotency-key": "kept" });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await health()).toMatchObject({ status: "degraded", reason: "disk_full", writes_refused: 2 });
    expect(lines).toEqual([`storage: disk full at ${small.dir} (ENOSPC); writes refused until there is room`]);

    rmSync(filler());
    // What the timer does every 5 s while the fault lasts (it may have done it already).
    await server!.core.storageHealth.probe();
    expect(await health()).toMatchObject({ status: "ok" });
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .*\(disk full is over; 2 refused in \d+ s\)$/);
    expect((await create("After")).status).toBe(201);
    expect((await upload()).status).toBe(201);
  });

  it("a start on a full disk is refused at once, naming the file and the errno; once there is room it starts with everything", async () => {
    await server?.close();
    server = null;
    fillDisk(filler());
    try {
      const started = performance.now();
      // The data dir's lock is the first file a start writes (an SQLite file it cannot open is named too: guarded-database.test.ts).
      await expect(start()).rejects.toThrow(/ENOSPC/);
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      rmSync(filler());
    }
    server = await start();
    expect(await titles()).toEqual(["After", "Kept", "Pictured"]);
  });

  it("read-only at start: lp serve refuses with a message naming the errno", async () => {
    await server?.close();
    server = null;
    small.remount("ro");
    try {
      await expect(start()).rejects.toThrow(/EROFS/);
    } finally {
      small.remount("rw");
    }
    // Once writable again, the same dir opens with everything it held.
    server = await start();
    expect(await titles()).toEqual(["After", "Kept", "Pictured"]);
  });
});
