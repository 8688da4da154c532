import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@lp/core";
import { afterEach, describe, expect, it } from "vitest";
// Test harnesses of the core are not exported from @lp/core: reached by path, as tests reach them.
import { faultyDatabase, type FaultErrno } from "../../core/src/testing/faulty-database.js";
import { createApp } from "./app.js";
import { createDashboardHub } from "./dashboard/hub.js";
import { createTestApp, type TestApp } from "./testing/test-app.js";

/**
 * Storage faults through the engine's own error for a full, read-only or forbidden disk (injected by
 * faulty-database.ts), on SQLite in memory and in a data dir: the faults that cannot be made real here (root
 * ignores file modes, a mounted database cannot turn read-only) and the same checks as the real full disk of
 * storage-faults.tmpfs.test.ts.
 */
const FAULTS: ReadonlyArray<{ errno: FaultErrno; reason: string; status: number; code: string; says: string }> = [
  { errno: "ENOSPC", reason: "disk_full", status: 507, code: "insufficient_storage", says: "disk full at {where} (SQLITE_FULL); writes refused until there is room" },
  { errno: "EROFS", reason: "read_only", status: 503, code: "storage_unavailable", says: "file system read-only at {where} (SQLITE_READONLY); writes refused until it is writable again" },
  { errno: "EACCES", reason: "permission_denied", status: 503, code: "storage_unavailable", says: "permission denied at {where} (SQLITE_CANTOPEN); writes refused until lp may write there again" },
];

let app: TestApp | null = null;
let dir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** An app whose database refuses writes while `faulty.refuse()` is on; `timers` are the fault's minute count and probe. */
async function setUp(kind: "memory" | "sqlite") {
  dir = kind === "sqlite" ? mkdtempSync(join(tmpdir(), "lp-faults-")) : undefined;
  const faulty = faultyDatabase(await openDatabase(dir ? { kind: "sqlite", file: join(dir, "lp.db") } : { kind: "memory" }));
  const lines: string[] = [];
  const timers: Array<() => void> = [];
  app = await createTestApp({ storage: kind, dataDir: dir, database: faulty.database, coreDeps: { log: (line) => lines.push(line), every: (_ms, run) => (timers.push(run), () => {}) } });
  return { app, faulty, lines, timers };
}

const create = (t: TestApp, title: string) => t.call("POST", `${t.account}/products`, { body: { title, product_type: "physical", price: 1 } });

describe.each(["memory", "sqlite"] as const)("storage faults on %s", (kind) => {
  it.each(FAULTS)("$errno: writes answer $status $code with the reason, reads and /healthz go on, one line per fault", async (fault) => {
    const { app, faulty, lines } = await setUp(kind);
    const product = await create(app, "Kept");
    expect(product.status).toBe(201);
    faulty.refuse({ errno: fault.errno });
    for (let i = 0; i < 3; i++) {
      const refused = await create(app, `New ${i}`);
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
    expect(faulty.state.refused).toBe(4);
    // Named by where the database is: its data dir, or memory.
    expect(lines).toEqual([`storage: ${fault.says.replace("{where}", dir ?? "memory storage")}`]);
    expect(lines.join("\n")).not.toMatch(/\n\s+at /);

    faulty.heal();
    expect((await create(app, "After")).status).toBe(201);
    expect(lines.at(-1)).toMatch(/^storage: writes accepted again at .* 4 refused/);
    expect((await app.call("GET", "/healthz")).json).toMatchObject({ status: "ok" });
  });

  it("counts refusals once a minute while the fault lasts, and a probe ends it without a client write", async () => {
    const { app, faulty, lines, timers } = await setUp(kind);
    faulty.refuse();
    for (let i = 0; i < 2; i++) expect((await create(app, "x")).status).toBe(507);
    const [minute] = timers;
    minute!();
    expect(lines.at(-1)).toMatch(/^storage: 2 write\(s\) refused in the last minute \(disk full at /);
    minute!();
    expect(lines.filter((l) => l.includes("last minute"))).toHaveLength(1);
    expect(timers).toHaveLength(2);
    // The probe's own refusal is not counted as a client's write.
    await app.core.storageHealth.probe();
    expect(app.core.storageHealth.state()).toMatchObject({ reason: "disk_full", refused: 2 });
    expect(faulty.state.refused).toBe(3);
    faulty.heal();
    await app.core.storageHealth.probe();
    expect(app.core.storageHealth.state()).toBeNull();
    expect(lines.at(-1)).toContain("writes accepted again");
    // What it wrote: the time, in the settings row no export carries.
    expect(await app.core.database.db.selectFrom("settings").select("value").where("name", "=", "storage_probe").executeTakeFirst()).toEqual({ value: "2026-03-01T10:00:00.000Z" });
  });
});

describe("the console during a storage fault", () => {
  it("shows the fault the dashboard's state reports, and nothing once it is over", async () => {
    const { app, faulty } = await setUp("memory");
    const hub = createDashboardHub();
    const dashboardApp = createApp({ core: app.core, settings: { simulate: true, adminKey: app.adminKey, publicUrl: () => "http://lp.test" }, log: null, dashboard: hub }).app;
    const host = { host: "127.0.0.1:4010" };
    const login = await dashboardApp.request(`/_dashboard/login?token=${hub.access.issueLogin()}`, { headers: host });
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const state = async () => ((await (await dashboardApp.request("/_dashboard/api/state", { headers: { ...host, cookie } })).json()) as { data: { storage: unknown } }).data.storage;
    expect(await state()).toEqual({ kind: "memory", fault: null });
    faulty.refuse({ errno: "EROFS" });
    expect((await create(app, "x")).status).toBe(503);
    expect(await state()).toMatchObject({ kind: "memory", fault: { reason: "read_only", refused: 1 } });
    faulty.heal();
    await app.core.storageHealth.probe();
    expect(await state()).toEqual({ kind: "memory", fault: null });
  });
});
