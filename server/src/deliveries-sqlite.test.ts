import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqlite } from "../../core/src/storage/sqlite.js";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookTestApp, type WebhookTestApp } from "./routes/webhooks-test-kit.js";

describe("an endpoint's deliveries on SQLite, listed from the database", () => {
  const dir = mkdtempSync(join(tmpdir(), "lp-deliveries-"));
  let t: WebhookTestApp | undefined;
  afterEach(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists what is stored after a restart, skips a damaged delivery and logs it once", async () => {
    t = await createWebhookTestApp({ dataDir: dir });
    const receiver = await t.receiver();
    const endpoint = await t.endpoint(receiver, { events: ["product.created"] });
    for (const title of ["A", "B", "C", "D"]) await t.product(title);
    await t.settle();
    const before = (await t.dev("GET", `/${endpoint.id}/deliveries?per_page=100`)).json.data;
    expect(before.map((d: { payload: { data: { title: string } } }) => d.payload.data.title)).toEqual(["D", "C", "B", "A"]);
    await t.close();
    // As `sqlite3 lp.db "UPDATE records ..."` would, with the server stopped: B's delivery keeps its created_at
    // (so the database's index still lists it) but loses fields every delivery has.
    const damaged = before[2].id as string;
    const db = openSqlite(join(dir, "lp.db"));
    try {
      expect(db.prepare("UPDATE records SET value = json_remove(value, '$.status', '$.attempts') WHERE key = ?").run(`webhooks:deliveries:${endpoint.id}:${damaged}`).changes).toBe(1);
    } finally {
      db.close();
    }
    const lines: string[] = [];
    t = await createWebhookTestApp({ dataDir: dir, coreDeps: { log: (line) => lines.push(line) } });
    for (let i = 0; i < 2; i++) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await t.dev("GET", `/${endpoint.id}/deliveries?per_page=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        expect(page.status).toBe(200);
        seen.push(...page.json.data.map((d: { id: string }) => d.id));
        cursor = page.json.pagination.next_cursor;
      } while (cursor);
      expect(seen).toEqual([before[0].id, before[1].id, before[3].id]);
    }
    const named = lines.filter((line) => line.includes(damaged));
    expect(named).toHaveLength(1);
    expect(named[0]).toContain(join(dir, "lp.db"));
  });
});
