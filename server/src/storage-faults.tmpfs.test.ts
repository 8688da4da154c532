import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "./serve.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

/** A 2 MB tmpfs to fill, when this process may mount one (root with CAP_SYS_ADMIN, as in CI's container). */
function mountSmallDisk(): { dir: string; remount(mode: "ro" | "rw"): void; unmount(): void } | string {
  if (process.getuid?.() !== 0) return "not running as root (mounting a small tmpfs needs it)";
  const dir = mkdtempSync(join(tmpdir(), "lp-small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmdirSync(dir);
    return `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  }
  return {
    dir,
    remount: (mode) => execFileSync("mount", ["-o", `remount,${mode}`, dir], { stdio: "pipe" }),
    unmount() {
      execFileSync("umount", [dir], { stdio: "pipe" });
      rmdirSync(dir);
    },
  };
}

/** Writes a file until the disk refuses (ENOSPC): what is left is not enough for any record. */
function fill(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 1; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

const disk = mountSmallDisk();
if (typeof disk === "string") console.warn(`[lp] skipping the real full and read-only disk tests: ${disk}; storage-faults.test.ts covers them with an injected error`);

// While lp serve runs, its database is open for writing, so the kernel refuses `mount -o remount,ro` (EBUSY):
// a data dir turns read-only under a running server only when the kernel forces it after I/O errors, which no
// test can do safely. That case answers 503 read_only like any EROFS (storage-faults.test.ts injects it).
describe.skipIf(typeof disk === "string")("a real small disk (tmpfs) that fills up, and is read-only at a start", () => {
  const small = disk as Exclude<typeof disk, string>;
  let app: TestApp;
  const lines: string[] = [];
  const filler = () => join(small.dir, "filler");
  beforeAll(async () => {
    app = await createTestApp({ dataDir: small.dir, coreDeps: { log: (line) => lines.push(line), every: () => () => {} } });
  });
  afterAll(async () => {
    await app?.close();
    small.unmount();
  });

  const create = (title: string) => app.call("POST", `${app.account}/products`, { body: { title, product_type: "physical", price: 5, description: "x".repeat(2000) } });

  it("full: writes answer 507 disk_full, lists and GETs 200, /healthz degraded; room made, the probe ends it", async () => {
    const kept = await create("Kept");
    expect(kept.status).toBe(201);
    fill(filler());
    const refused = await create("Refused");
    expect(refused.status).toBe(507);
    expect(refused.json.error).toMatchObject({ code: "insufficient_storage", details: { reason: "disk_full" } });
    expect(refused.headers.get("retry-after")).toBe("30");
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: { title: string }) => p.title)).toEqual(["Kept"]);
    expect((await app.call("GET", `${app.account}/products/${kept.json.data.id}`)).status).toBe(200);
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "degraded", reason: "disk_full" });
    expect(lines).toEqual([`storage: disk full at ${small.dir} (ENOSPC); writes refused until there is room`]);

    rmSync(filler());
    await app.core.storageHealth.probe();
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .*\(disk full is over; 1 refused/);
    expect((await create("After")).status).toBe(201);
  });

  it("read-only at start: lp serve refuses with a message naming the data dir and the errno", async () => {
    await app.close();
    small.remount("ro");
    try {
      await expect(startServer({ storage: "sqlite", dataDir: small.dir, port: 0, log: null, admin: false })).rejects.toThrow(/EROFS/);
    } finally {
      small.remount("rw");
    }
    // Once writable again, the same dir opens with everything it held.
    app = await createTestApp({ dataDir: small.dir, coreDeps: { log: (line) => lines.push(line), every: () => () => {} } });
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.json.data.map((p: { title: string }) => p.title).sort()).toEqual(["After", "Kept"]);
  });
});
