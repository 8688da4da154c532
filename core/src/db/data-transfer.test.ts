import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { isLpError } from "../errors.js";
import { createMediaBlobs } from "../media/media-blobs.js";
import { describeDatabases, type DatabaseKind } from "../testing/databases.js";
import { exportData, format3ExportSchema, importData, importDocumentSchema, resetData, type DataTarget, type Format2Export, type Format3Export } from "./data-transfer.js";
import { openDatabase, type Database } from "./database.js";
import { importRecords, readFormat2File, type Format2Source } from "./import-records.js";
import { MIGRATION_TABLE } from "./migrate.js";
import { TABLE_ORDER } from "./table-catalog.js";

const NOW = "2026-12-01T09:00:00.000Z";
const fixture = new URL("../../../test/formats/data-dirs/format-2", import.meta.url).pathname;

let scratch = "";
let source: Format2Source;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "lp-data-transfer-"));
  cpSync(fixture, join(scratch, "format-2"), { recursive: true });
  const read = readFormat2File(join(scratch, "format-2", "lp.db"));
  source = { records: [...read.records], media: [...read.media] };
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The media blobs that go with a database of `kind`: files beside an SQLite file, memory, the table on PostgreSQL. */
function mediaFor(kind: DatabaseKind, database: Database, dir: string): Storage {
  if (kind === "postgres") return createMediaBlobs({ kind: "database", db: database.db, clock: { now: () => new Date(NOW) } });
  if (kind === "memory") return createMediaBlobs({ kind: "memory" });
  return createMediaBlobs({ kind: "files", dir: mkdtempSync(join(dir, "media-")) });
}

/** The format-2 fixture as a format-2 export document (what `GET /_admin/export` wrote: no meta keys). */
function format2Document(): Format2Export {
  const records = Object.fromEntries([...source.records].filter(([key]) => !key.startsWith("meta:")));
  const media = Object.fromEntries([...source.media].map(([key, bytes]) => [key, Buffer.from(bytes).toString("base64")]));
  return { format: "lp-export", version: 1, exported_at: NOW, records, media };
}

describeDatabases("export, import and reset", ({ kind, open }) => {
  const opened: DataTarget[] = [];
  afterEach(async () => {
    for (const t of opened.splice(0)) await t.media.dispose();
  });
  const targetOf = async (database?: Database): Promise<DataTarget> => {
    const db = database ?? (await open());
    const t = { database: db, media: mediaFor(database ? "memory" : kind, db, scratch) };
    opened.push(t);
    return t;
  };
  /** Another engine: SQLite in memory, beside whichever this suite runs on. */
  const another = async (): Promise<DataTarget & { close(): Promise<void> }> => {
    const database = await openDatabase({ kind: "memory" });
    return { ...(await targetOf(database)), close: () => database.close() };
  };
  /** The fixture's data on another engine, and its export. */
  async function seeded(): Promise<Format3Export> {
    const other = await another();
    await importRecords(other.database, source, { media: other.media, now: NOW });
    const doc = await exportData(other, { now: NOW });
    await other.close();
    return doc;
  }
  const counts = async (t: DataTarget) => Object.fromEntries(await Promise.all(TABLE_ORDER.map(async (table) => [table, (await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n]))) as Record<string, number>;

  it("export, import into another engine, export: the same document, every table's rows and every media file", async () => {
    const first = await seeded();
    expect(first.version).toBe(3);
    expect(first.tables.products).toHaveLength(515);
    expect(first.tables.webhook_deliveries).toHaveLength(517);
    expect(Object.keys(first.media)).toHaveLength(4);
    expect(first.tables).not.toHaveProperty("settings");
    const here = await targetOf();
    const imported = await importData(here, first, { now: NOW });
    expect(imported.tables.products).toBe(515);
    expect(imported.media).toBe(4);
    const second = await exportData(here, { now: NOW });
    // The same text: rows, columns and JSON documents in the same order, whichever engine wrote them.
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    const back = await another();
    await importData(back, second, { now: NOW });
    expect(JSON.stringify(await exportData(back, { now: NOW }))).toBe(JSON.stringify(first));
    await back.close();
  });

  it("imports a format-2 export document (the way off Redis) into the rows format 2's records make", async () => {
    const expected = await seeded();
    const here = await targetOf();
    const doc = importDocumentSchema.parse(JSON.parse(JSON.stringify(format2Document())));
    const imported = await importData(here, doc, { now: NOW });
    expect(imported.left).toEqual([]);
    expect(JSON.stringify(await exportData(here, { now: NOW }))).toBe(JSON.stringify(expected));
  });

  it("replaces every row and media file but keeps the settings", async () => {
    const doc = await seeded();
    const here = await targetOf();
    await here.database.db.insertInto("settings").values({ name: "cursor_key", value: "kept", created_at: NOW }).execute();
    await here.database.db.insertInto("accounts").values({ account_id: "old", environment: "test", currency: "EUR", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: NOW, updated_at: NOW }).execute();
    await here.media.setItemRaw("products:old:x.png", Buffer.from("old"));
    await here.media.setItemRaw("products:435a3478-8c65-4ea7-902c-bf1c9cb29c72:3de9f745-4b43-4302-b152-198d1a78aba7.png", Buffer.from("other bytes"));
    await importData(here, doc, { now: NOW });
    expect(await here.database.db.selectFrom("accounts").select("account_id").execute()).toEqual([{ account_id: "acct_dev" }]);
    expect(await here.database.db.selectFrom("settings").select(["name", "value"]).execute()).toEqual([{ name: "cursor_key", value: "kept" }]);
    expect(await here.media.hasItem("products:old:x.png")).toBe(false);
    expect((await exportData(here, { now: NOW })).media).toEqual(doc.media);
  });

  it("refuses a format-2 document with bad records, naming each key, and changes nothing", async () => {
    const doc = format2Document();
    const productKey = Object.keys(doc.records).find((key) => /^acct:[^:]+:products:/.test(key))!;
    const bad = importDocumentSchema.parse({ ...doc, records: { ...doc.records, [productKey]: "garbage", "accounts:shop": { account_id: "shop" }, "nothing:here": {}, "meta:admin_key": { key: "x" } }, media: { ...doc.media, "products:x:y.png": "not base64!" } });
    const here = await targetOf();
    const before = await seeded();
    await importData(here, before, { now: NOW });
    const error = await importData(here, bad, { now: NOW }).catch((e: unknown) => e);
    expect(isLpError(error) && error.code).toBe("validation_error");
    const issues = (error as { details: { issues: Array<{ path: string; code: string }> } }).details.issues;
    expect(issues.map((i) => i.path).sort()).toEqual([`records.${productKey}`, "records.accounts:shop", "records.nothing:here", "records.meta:admin_key", "media.products:x:y.png"].sort());
    expect(issues.find((i) => i.path === "records.nothing:here")!.code).toBe("unknown_store");
    expect(issues.find((i) => i.path === "records.meta:admin_key")!.code).toBe("meta_key");
    expect(JSON.stringify(await exportData(here, { now: NOW }))).toBe(JSON.stringify(before));
  });

  it("refuses a document the database refuses (a token of no account) and changes nothing, the media it brought removed again", async () => {
    const before = await seeded();
    const here = await targetOf();
    await importData(here, before, { now: NOW });
    const bad: Format3Export = {
      ...before,
      tables: { ...before.tables, tokens: [...before.tables.tokens!, { token_hash: "f".repeat(64), account_id: "nobody", scopes: [], expires_at: null, created_at: NOW }] },
      media: { ...before.media, "products/new/1.png": Buffer.from("new").toString("base64") },
    };
    const error = await importData(here, bad, { now: NOW }).catch((e: unknown) => e);
    expect(isLpError(error) && error.code).toBe("validation_error");
    expect((error as Error).message).toContain("nothing changed");
    expect(JSON.stringify(await exportData(here, { now: NOW }))).toBe(JSON.stringify(before));
  });

  it("reset empties every table but the settings and the migrations, and removes every media file", async () => {
    const here = await targetOf();
    await importRecords(here.database, source, { media: here.media, now: NOW });
    expect((await counts(here)).products).toBe(515);
    await resetData(here);
    expect(await counts(here)).toEqual({ ...Object.fromEntries(TABLE_ORDER.map((t) => [t, 0])), settings: 3 });
    expect(await here.media.getKeys()).toEqual([]);
    expect((await here.database.db.selectFrom(MIGRATION_TABLE as "settings").selectAll().execute()).length).toBeGreaterThan(0);
    await resetData(here, { settings: true });
    expect((await counts(here)).settings).toBe(0);
    // Empty, the schema takes the same data again.
    await importRecords(here.database, source, { media: here.media, now: NOW });
    expect((await counts(here)).products).toBe(515);
  });
});

describe("the import document's schema", () => {
  const doc = { format: "lp-export", version: 3, exported_at: NOW, tables: { accounts: [{ account_id: "a", environment: "production", currency: "USD", page_quota: 1, product_quota: 1, media_quota_bytes: 1, created_at: NOW, updated_at: NOW }] }, media: {} };
  it("takes a format-3 document and refuses unknown tables, missing or extra columns, wrong kinds and bad media paths", () => {
    expect(format3ExportSchema.safeParse(doc).success).toBe(true);
    const row = doc.tables.accounts[0]!;
    for (const bad of [
      { ...doc, tables: { nothing: [] } },
      { ...doc, tables: { settings: [] } },
      { ...doc, tables: { accounts: [{ ...row, extra: 1 }] } },
      { ...doc, tables: { accounts: [{ ...row, page_quota: "1" }] } },
      { ...doc, tables: { accounts: [{ ...row, page_quota: 1.5 }] } },
      { ...doc, tables: { accounts: [{ ...row, created_at: undefined }] } },
      { ...doc, media: { "../etc/passwd.png": "" } },
      { ...doc, media: { "products/a/b.png": "not base64!" } },
      { ...doc, version: 2 },
    ]) {
      expect(importDocumentSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
