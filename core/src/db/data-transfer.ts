import type { Storage } from "unstorage";
import { z } from "zod";
import { LpError, type ValidationIssue } from "../errors.js";
import { fromJson, toJson } from "./column-types.js";
import type { Database, Tx } from "./database.js";
import { recordProblem, toKeyOf } from "./format-2-records.js";
import { KIND_NAMES, type LeftOut } from "./format-2-row-build.js";
import { toFormat3Rows } from "./format-2-rows.js";
import { columnsOf, TABLE_ORDER, tableSpec, type AnyRow, type CatalogTable, type ColumnKind, type TableRows } from "./table-catalog.js";
import { clearTables, readTableRows, writeTableRows } from "./table-copy.js";

/** The version of the export document this lp writes: format 3's tables. Version 1 is format 2's records. */
export const EXPORT_VERSION = 3;

/** The largest import body the admin route reads (as it always has); the schema bounds what is inside it. */
export const IMPORT_BODY_LIMIT = 512 * 1024 * 1024;

/** Most rows of one table, and most media files, one document may hold. */
const MAX_ROWS = 5_000_000;
/** Most issues one refused import lists: a document of a million bad records must not answer with a million. */
export const MAX_IMPORT_ISSUES = 1000;

/**
 * The tables an export carries: every table but `settings`, the service's own keys (cursors, builder
 * links, the admin key, the dev credentials in clear), which never leave it in a document, and which a
 * reset and an import keep, as they always kept the store's meta keys: saved credentials stay good.
 */
export const EXPORTED_TABLES: readonly CatalogTable[] = TABLE_ORDER.filter((table) => table !== "settings");

/** Where the data of a service is: its database and its media blobs (`media/media-blobs.ts`). */
export interface DataTarget {
  database: Database;
  media: Storage;
}

/** A format-2 storage key: segments start with a letter, digit, `_` or `-`, so `..` and hidden names never get in. */
const FORMAT_2_KEY = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(:[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;
/** A media file's key (`products:{id}:{image}.png`) and its path (`products/{id}/{image}.png`). */
const MEDIA_KEY = /^[a-z0-9_-]+(:[A-Za-z0-9_-]+)*:[A-Za-z0-9_-]+\.(png|jpg|gif|webp|avif|svg)$/;
const MEDIA_PATH = /^[a-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/[A-Za-z0-9_-]+\.(png|jpg|gif|webp|avif|svg)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const base64 = z.string().refine((value) => value.length % 4 === 0 && BASE64.test(value), "is not base64");

const KIND_SCHEMAS: Record<ColumnKind, z.ZodType> = {
  text: z.string(),
  "text?": z.string().nullable(),
  int: z.number().int(),
  "int?": z.number().int().nullable(),
  real: z.number(),
  "real?": z.number().nullable(),
  json: z.json(),
  "json?": z.json().nullable(),
};

/** A row of `table` as a document holds it: every column, of its kind, JSON columns as their documents. */
function rowSchema(table: CatalogTable) {
  const columns = tableSpec(table).columns as Record<string, ColumnKind>;
  return z.strictObject(Object.fromEntries(Object.entries(columns).map(([name, kind]) => [name, KIND_SCHEMAS[kind]])));
}

/** An export of format 3 (`version` 3): every exported table's rows, and every media file by its path. */
export const format3ExportSchema = z.strictObject({
  format: z.literal("lp-export"),
  version: z.literal(EXPORT_VERSION),
  exported_at: z.string().max(64),
  tables: z.strictObject(Object.fromEntries(EXPORTED_TABLES.map((table) => [table, z.array(rowSchema(table)).max(MAX_ROWS).optional()]))),
  media: z.record(z.string().max(1024).regex(MEDIA_PATH), base64),
});

/** An export of format 2 (`version` 1, what `GET /_admin/export` wrote before format 3): records by key, media by key. */
export const format2ExportSchema = z.strictObject({
  format: z.literal("lp-export"),
  version: z.literal(1),
  exported_at: z.string().max(64),
  records: z.record(z.string().max(1024).regex(FORMAT_2_KEY), z.unknown()),
  // Checked one by one (`checkFormat2Document`), so each bad file is named.
  media: z.record(z.string().max(1024).regex(FORMAT_2_KEY), z.string()),
});

/** What `POST /_admin/import` takes: a document of format 3, or one of format 2 (the way off an older store, Redis). */
export const importDocumentSchema = z.discriminatedUnion("version", [format3ExportSchema, format2ExportSchema]);

export type Format3Export = z.infer<typeof format3ExportSchema>;
export type Format2Export = z.infer<typeof format2ExportSchema>;
export type ImportDocument = z.infer<typeof importDocumentSchema>;

/** What an import wrote, and the format-2 records it left out (naming what is not there). */
export interface ImportCounts {
  /** Rows written, by exported table ({@link EXPORTED_TABLES}). */
  tables: Record<string, number>;
  media: number;
  left: LeftOut[];
}

/** The media path of a blob key (`products:p:i.png` → `products/p/i.png`), and back. */
const toPath = (key: string) => key.split(":").join("/");
const toKey = (path: string) => path.split("/").join(":");

/**
 * Every row of every exported table (JSON columns as their documents, rows in primary-key order) and every
 * media file, in one document: the same document from SQLite and PostgreSQL for the same data.
 */
export async function exportData(target: DataTarget, options: { now: string }): Promise<Format3Export> {
  const tables: Record<string, Array<Record<string, unknown>>> = {};
  const read = async (tx: Tx) => {
    for (const table of EXPORTED_TABLES) tables[table] = (await readTableRows(tx, table)).map((row) => toDocumentRow(table, row));
  };
  // Every table as of one moment: on PostgreSQL a repeatable-read transaction reads one snapshot (a
  // read-committed one would see each table as of its own statement); SQLite's transactions always do.
  if (target.database.dialect === "postgres") await target.database.db.transaction().setIsolationLevel("repeatable read").execute(read);
  else await target.database.transaction(read);
  const media: Record<string, string> = {};
  for (const key of (await target.media.getKeys()).sort()) {
    const bytes = await target.media.getItemRaw(key);
    if (bytes) media[toPath(key)] = Buffer.from(bytes as Uint8Array).toString("base64");
  }
  return { format: "lp-export", version: EXPORT_VERSION, exported_at: options.now, tables, media };
}

/**
 * Empties every table but the migrations' and `settings` (with `settings: true`, that one too), in one
 * transaction, then removes every media file.
 */
export async function resetData(target: DataTarget, options: { settings?: boolean } = {}): Promise<void> {
  await target.database.transaction((tx) => clearTables(tx, { except: options.settings ? [] : ["settings"] }));
  await target.media.clear();
}

/**
 * Replaces every row but the settings and every media file with those of `doc`, all or nothing. A format-2
 * document is checked first, each record against its kind's schema (every bad key named, at most
 * {@link MAX_IMPORT_ISSUES}), then made into rows (`toFormat3Rows`; records naming what is not there are left
 * out and named in the answer); a format-3 one was checked by its schema. The old rows are deleted and the
 * new written in one transaction, so a refusal by the database (a foreign key, a check) changes nothing
 * and is a `validation_error` naming it. Media files new to the store are written before it (removed
 * again if it is refused), those replacing a file of the same path and the removal of the files the
 * document does not hold come after it commits.
 */
export async function importData(target: DataTarget, doc: ImportDocument, options: { now: string }): Promise<ImportCounts> {
  const { rows, media, left } = doc.version === EXPORT_VERSION ? fromFormat3(doc) : fromFormat2(doc, options.now);
  const existing = new Set(await target.media.getKeys());
  const added: string[] = [];
  const replaced: Array<[string, Buffer]> = [];
  for (const [key, bytes] of media) {
    if (!existing.has(key)) {
      await target.media.setItemRaw(key, bytes);
      added.push(key);
    } else if (!Buffer.from((await target.media.getItemRaw(key)) as Uint8Array).equals(bytes)) {
      replaced.push([key, bytes]);
    }
  }
  let tables: Record<string, number>;
  try {
    const written = await target.database.transaction(async (tx) => {
      await clearTables(tx, { except: ["settings"] });
      return writeTableRows(tx, rows);
    });
    // By the tables a document carries: the settings are never imported.
    tables = Object.fromEntries(EXPORTED_TABLES.map((table) => [table, written[table] ?? 0]));
  } catch (error) {
    for (const key of added) await target.media.removeItem(key);
    const message = error instanceof Error ? error.message : String(error);
    throw new LpError("validation_error", `The import was refused, nothing changed: the database refused a row (${message}).`, {
      issues: [{ path: "tables", code: "refused_by_database", message }] satisfies ValidationIssue[],
    });
  }
  for (const [key, bytes] of replaced) await target.media.setItemRaw(key, bytes);
  const kept = new Set(media.keys());
  for (const key of existing) if (!kept.has(key)) await target.media.removeItem(key);
  return { tables, media: media.size, left };
}

/** A row as a document holds it: its JSON columns parsed. */
function toDocumentRow(table: CatalogTable, row: AnyRow): Record<string, unknown> {
  const columns = tableSpec(table).columns as Record<string, ColumnKind>;
  return Object.fromEntries(columnsOf(table).map((name) => [name, columns[name]!.startsWith("json") ? fromJson(row[name] as string | null) : row[name]]));
}

function fromFormat3(doc: Format3Export): { rows: TableRows; media: Map<string, Buffer>; left: LeftOut[] } {
  const rows: TableRows = {};
  for (const table of EXPORTED_TABLES) {
    const columns = tableSpec(table).columns as Record<string, ColumnKind>;
    const json = Object.keys(columns).filter((name) => columns[name]!.startsWith("json"));
    rows[table] = ((doc.tables as Record<string, Array<Record<string, unknown>>>)[table] ?? []).map((row) => {
      const out = { ...row } as AnyRow;
      for (const name of json) out[name] = row[name] === null ? null : toJson(row[name]);
      return out;
    });
  }
  return { rows, media: new Map(Object.entries(doc.media).map(([path, text]) => [toKey(path), Buffer.from(text, "base64")])), left: [] };
}

function fromFormat2(doc: Format2Export, now: string): { rows: TableRows; media: Map<string, Buffer>; left: LeftOut[] } {
  const issues = checkFormat2Document(doc);
  if (issues.length > 0) {
    const more = issues.length >= MAX_IMPORT_ISSUES ? ` (the first ${MAX_IMPORT_ISSUES})` : "";
    throw new LpError("validation_error", `The import was refused, nothing changed: ${issues.length} invalid entries${more}.`, { issues });
  }
  const made = toFormat3Rows(Object.entries(doc.records), { now });
  const media = new Map<string, Buffer>();
  for (const [key, text] of Object.entries(doc.media)) if (!made.isLeftMedia(key)) media.set(key, Buffer.from(text, "base64"));
  return { rows: made.rows, media, left: made.left };
}

/**
 * Every problem of a format-2 document, before anything changes: meta keys (a service's own, never
 * imported), keys no store keeps, records that fail their kind's schema, media that is not a media path or
 * not base64. At most {@link MAX_IMPORT_ISSUES}.
 */
export function checkFormat2Document(doc: Format2Export): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (issue: ValidationIssue) => issues.length < MAX_IMPORT_ISSUES && issues.push(issue);
  for (const [key, value] of Object.entries(doc.records)) {
    const path = `records.${key}`;
    if (key.startsWith("meta:")) {
      add({ path, code: "meta_key", message: "meta: keys are not importable" });
      continue;
    }
    const of = toKeyOf(key);
    if (of.kind === "unknown") add({ path, code: "unknown_store", message: "no store keeps records under this key" });
    else if (of.kind !== "not_needed") {
      const problem = recordProblem(of.kind, value);
      if (problem) add({ path, code: "invalid_record", message: `is not a valid ${KIND_NAMES[of.kind]} record (${problem})` });
    }
  }
  for (const [key, value] of Object.entries(doc.media)) {
    if (!MEDIA_KEY.test(key)) add({ path: `media.${key}`, code: "invalid_media_key", message: "is not a media path" });
    else if (value.length % 4 !== 0 || !BASE64.test(value)) add({ path: `media.${key}`, code: "invalid_base64", message: "is not base64" });
  }
  return issues;
}
