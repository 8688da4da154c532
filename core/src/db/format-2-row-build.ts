import { recordProblem, toKeyOf, type Format2Kind, type Format2Record } from "./format-2-records.js";
import type { AnyRow, CatalogTable, TableRows } from "./table-catalog.js";

/** A record the tables do not take, and why (it stays in the format-2 file or document it came from). */
export interface LeftOut {
  key: string;
  reason: string;
}

/** A record of a kind, with its key and the parts of its key. */
export type Found<K extends Format2Kind> = { key: string; parts: string[]; record: Format2Record<K> };
/** The records of each kind. */
export type ByKind = { [K in Format2Kind]: Found<K>[] };

/** What each kind of record is called where a refusal names it. */
export const KIND_NAMES: Record<Format2Kind, string> = {
  account: "account",
  token: "token",
  app: "application",
  product: "product",
  page: "page",
  job: "job",
  deployment: "deployment",
  checkout: "checkout",
  idempotency: "idempotency",
  site: "site",
  siteFiles: "site files",
  deletion: "deletion journal",
  endpoint: "webhook endpoint",
  delivery: "delivery",
  outbox: "webhook outbox",
  cursorKey: "cursor key",
  builderKey: "builder key",
  adminKey: "admin key",
  devCredentials: "dev credentials",
};

/** Sorts every record by its kind, leaving out unknown keys and records that fail their kind's schema. */
export function sortRecords(records: Iterable<readonly [string, unknown]>, left: LeftOut[]): { byKind: ByKind; notNeeded: number } {
  const byKind = Object.fromEntries(Object.keys(KIND_NAMES).map((kind) => [kind, []])) as unknown as ByKind;
  let notNeeded = 0;
  for (const [key, value] of records) {
    const of = toKeyOf(key);
    if (of.kind === "not_needed") {
      notNeeded++;
      continue;
    }
    if (of.kind === "unknown") {
      left.push({ key, reason: "no store keeps records under this key" });
      continue;
    }
    const problem = recordProblem(of.kind, value);
    if (problem) left.push({ key, reason: `not a valid ${KIND_NAMES[of.kind]} record (${problem})` });
    else (byKind[of.kind] as Found<Format2Kind>[]).push({ key, parts: of.parts, record: value as never });
  }
  return { byKind, notNeeded };
}

/**
 * What the rows of every area are made in: the rows so far, the records left out, and the checks that stand
 * in for the tables' primary and foreign keys (each area's records are checked against what the areas before
 * it wrote).
 */
export interface RowBuild {
  byKind: ByKind;
  rows: TableRows;
  add(table: CatalogTable, row: AnyRow): void;
  leave(key: string, reason: string): void;
  /** Whether `id` is new to `table`; a second record of one (its key and its id disagreeing) is left out. */
  once(table: CatalogTable, id: string, key: string): boolean;
  /** The accounts written: the first area's. */
  accounts: Set<string>;
  /** Whether the record's account was written; one naming an account that is not there is left out. */
  needAccount(key: string, accountId: string): boolean;
}

/** An empty build over sorted records, leaving out into `left`. */
export function createRowBuild(byKind: ByKind, left: LeftOut[]): RowBuild {
  const rows: TableRows = {};
  const leave = (key: string, reason: string) => void left.push({ key, reason });
  // Primary keys already written, by table.
  const written = new Map<CatalogTable, Set<string>>();
  const accounts = new Set<string>();
  return {
    byKind,
    rows,
    add: (table, row) => void (rows[table] ??= []).push(row),
    leave,
    once(table, id, key) {
      const seen = written.get(table) ?? written.set(table, new Set()).get(table)!;
      if (seen.has(id)) return leave(key, `a second record of ${table} ${id}`), false;
      seen.add(id);
      return true;
    },
    accounts,
    needAccount: (key, accountId) => accounts.has(accountId) || (leave(key, `names account ${accountId}, which is not there`), false),
  };
}
