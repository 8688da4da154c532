import type { Driver } from "unstorage";
import { prefixEnd, type ReadStatements } from "./sqlite-database.js";
import type { SqliteWriter, WriteOp } from "./sqlite-writer.js";

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;

/**
 * `key` when every segment is plain (letters, digits, `_ . -`, not starting with a dot, none empty), else a
 * throw: a key lp did not mean (`a::b`, `a:..:b`) is a bug to surface, not a row to write.
 */
export function checkKey(key: string): string {
  if (key.length > 1024 || !key.split(":").every((part) => SEGMENT.test(part))) {
    throw new Error(`Unsafe storage key: ${JSON.stringify(key.slice(0, 200))}`);
  }
  return key;
}

/** The collection of a key: everything before its last `:` ("" at the root). */
export const parentOf = (key: string): string => key.slice(0, Math.max(0, key.lastIndexOf(":")));

/** The text a record is stored as: a string as it is, anything else as its JSON (what unstorage stores). */
export const toText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/** The keys of `keysFrom`/`keysAll` that start with `base`, in key order. */
function keysUnder(base: string | undefined, from: (lower: string, upper: string) => string[], all: (lower: string) => string[]): string[] {
  const end = prefixEnd(base ?? "");
  return end === null ? all("") : from(base!, end);
}

/**
 * The records table as an unstorage driver: reads straight from the main thread's connection (a few
 * microseconds each, never a wait on a write), writes through the writer thread, each resolving once it is
 * durable. `getKeys` filters by the raw prefix it is given, in key order.
 */
export function sqliteRecordsDriver(reads: ReadStatements, writer: SqliteWriter): Driver {
  return {
    name: "sqlite",
    options: {},
    hasItem: (key) => reads.has.get(checkKey(key)) !== undefined,
    getItem: (key) => reads.get.get(checkKey(key)) ?? null,
    setItem: (key, value) => writer.write([["put", checkKey(key), parentOf(key), toText(value)]]),
    removeItem: (key) => writer.write([["del", checkKey(key)]]),
    getKeys: (base) => keysUnder(base, (a, b) => reads.keysFrom.all(a, b), (a) => reads.keysAll.all(a)),
    clear: (base) => writer.write([["clear", base ?? "", prefixEnd(base ?? "")]]),
  };
}

/** The media table as an unstorage driver: blobs, read and written whole. */
export function sqliteMediaDriver(reads: ReadStatements, writer: SqliteWriter): Driver {
  return {
    name: "sqlite-media",
    options: {},
    hasItem: (key) => reads.hasMedia.get(checkKey(key)) !== undefined,
    getItem: (key) => reads.media.get(checkKey(key))?.toString("utf8") ?? null,
    getItemRaw: (key) => reads.media.get(checkKey(key)) ?? null,
    setItem: (key, value) => writer.write([["media", checkKey(key), Buffer.from(toText(value), "utf8")]]),
    setItemRaw: (key, value: Uint8Array) => writer.write([["media", checkKey(key), value]]),
    removeItem: (key) => writer.write([["mdel", checkKey(key)]]),
    getKeys: (base) => keysUnder(base, (a, b) => reads.mediaKeysFrom.all(a, b), (a) => reads.mediaKeysAll.all(a)),
    clear: (base) => writer.write([["mclear", base ?? "", prefixEnd(base ?? "")]]),
  };
}

/** The ops of one {@link Stores.batch} on the records table. */
export function batchOps(ops: readonly ({ key: string; value: unknown } | { key: string; remove: true })[]): WriteOp[] {
  return ops.map((op) => ("remove" in op || op.value === undefined ? ["del", checkKey(op.key)] : ["put", checkKey(op.key), parentOf(op.key), toText(op.value)]));
}
