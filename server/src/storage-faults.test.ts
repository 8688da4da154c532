import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStores, type StorageKind, type Stores } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { createDashboardHub } from "./dashboard/hub.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

/**
 * Storage faults through an injected error (the codes Node gives for a full, read-only or forbidden disk),
 * on memory and fs: the faults that cannot be made real here (root ignores file modes) and the same checks
 * as the real ones in storage-faults.tmpfs.test.ts, on every driver.
 */
const FAULTS = [
  { errno: "ENOSPC", reason: "disk_full", status: 507, code: "insufficient_storage" },
  { errno: "EROFS", reason: "read_only", status: 503, code: "storage_unavailable" },
  { errno: "EACCES", reason: "permission_denied", status: 503, code: "storage_unavailable" },
] as const;

/** Stores whose record and media writes fail with `errno` while `broken.on` is set. */
function breakable(kind: StorageKind, dir: string | undefined) {
  const stores = createStores(kind, dir);
  const broken = { on: false, errno: "ENOSPC" };
  const fail = () => Object.assign(new Error(`${broken.errno}: injected, write '${dir}'`), { code: broken.errno });
  for (const storage of [stores.data, stores.media]) {
    for (const name of ["setItem", "setItemRaw", "removeItem"] as const) {
      const original = storage[name].bind(storage) as (...args: unknown[]) => Promise<void>;
      (storage as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => (broken.on ? Promise.reject(fail()) : original(...args));
    }
  }
  return { stores: stores as Stores, broken };
}

let app: TestApp | null = null;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(["memory", "sqlite"] as const)("storage faults on %s", (kind) => {
  async function setUp() {
    dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-faults-")) : undefined;
    const { stores, broken } = breakable(kind, dir);
    const lines: string[] = [];
    const timers: Array<() => void> = [];
    app = await createTestApp({ stores, coreDeps: { log: (line) => lines.push(line), every: (_ms, run) => (timers.push(run), () => {}) } });
    return { app, broken, lines, timers };
  }

  it.each(FAULTS)("$errno: writes answer $status $code with the reason, reads and /healthz go on, one line per fault", async (fault) => {
    const { app, broken, lines } = await setUp();
    const product = await app.call("POST", `${app.account}/products`, { body: { title: "Kept", product_type: "physical", price: 10 } });
    expect(product.status).toBe(201);
    broken.on = true;
    broken.errno = fault.errno;
    for (let i = 0; i < 3; i++) {
      const refused = await app.call("POST", `${app.account}/products`, { body: { title: `New ${i}`, product_type: "physical", price: 1 } });
      expect(refused.status).toBe(fault.status);
      expect(refused.json.error.code).toBe(fault.code);
      expect(refused.json.error.details).toMatchObject({ reason: fault.reason });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // A soft delete is a write too: refused the same way, never a 500.
    const deleted = await app.call("DELETE", `${app.account}/products/${product.json.data.id}`);
    expect(deleted.status).toBe(fault.status);
    const list = await app.call("GET", `${app.account}/products`);
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: { title: string }) => p.title)).toEqual(["Kept"]);
    expect((await app.call("GET", `${app.account}/products/${product.json.data.id}`)).status).toBe(200);
    const health = await app.call("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: "degraded", reason: fault.reason, writes: "refused", writes_refused: 4 });
    expect(lines.filter((l) => l.startsWith("storage:"))).toHaveLength(1);
    expect(lines[0]).toContain(`(${fault.errno}); writes refused`);
    expect(lines.join("\n")).not.toMatch(/\n\s+at /);

    broken.on = false;
    expect((await app.call("POST", `${app.account}/products`, { body: { title: "After", product_type: "physical", price: 2 } })).status).toBe(201);
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .* 4 refused/);
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
  });

  it("counts refusals once a minute while the fault lasts, and a probe ends it without a client write", async () => {
    const { app, broken, lines, timers } = await setUp();
    broken.on = true;
    for (let i = 0; i < 2; i++) await app.call("POST", `${app.account}/products`, { body: { title: "x", product_type: "physical", price: 1 } });
    const [minute] = timers;
    minute!();
    expect(lines.at(-1)).toMatch(/^storage: 2 write\(s\) refused in the last minute \(disk full at /);
    minute!();
    expect(lines.filter((l) => l.includes("last minute"))).toHaveLength(1);
    expect(timers).toHaveLength(2);
    await app.core.storageHealth.probe();
    expect(app.core.storageHealth.state()).toMatchObject({ reason: "disk_full", refused: 2 });
    broken.on = false;
    await app.core.storageHealth.probe();
    expect(app.core.storageHealth.state()).toBeNull();
    expect(lines.at(-1)).toContain("writes accepted again");
  });
});

describe("the console during a storage fault", () => {
  it("shows the fault the dashboard's state reports, and nothing once it is over", async () => {
    const { stores, broken } = breakable("memory", undefined);
    app = await createTestApp({ stores, coreDeps: { log: () => {}, every: () => () => {} } });
    const hub = createDashboardHub();
    const dashboardApp = createApp({ core: app.core, settings: { simulate: true, adminKey: app.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
    const host = { host: "127.0.0.1:4010" };
    const login = await dashboardApp.request(`/_dashboard/login?token=${hub.access.issueLogin()}`, { headers: host });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const state = async () => ((await (await dashboardApp.request("/_dashboard/api/state", { headers: { ...host, cookie } })).json()) as { data: { storage: unknown } }).data.storage;
    expect(await state()).toEqual({ kind: "memory", fault: null });
    broken.on = true;
    broken.errno = "EROFS";
    expect((await app.call("POST", `${app.account}/products`, { body: { title: "x", product_type: "physical", price: 1 } })).status).toBe(503);
    expect(await state()).toMatchObject({ kind: "memory", fault: { reason: "read_only", refused: 1 } });
    broken.on = false;
    await app.core.storageHealth.probe();
    expect(await state()).toEqual({ kind: "memory", fault: null });
  });
});
