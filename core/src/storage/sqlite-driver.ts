import type { Driver } from "unstorage";
import { prefixEnd, type ReadStatements } from "./sqlite-database.js";
import type { SqliteWriter, WriteOp } from "./sqlite-writer.js";
import { checkKey, parentOf, toStoredText as toText } from "./keys.js";
import { toBuffer } from "./sqlite.js";

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
    getItem: (key) => {
      const bytes = reads.media.get(checkKey(key));
      return bytes === undefined ? null : toBuffer(bytes).toString("utf8");
    },
    getItemRaw: (key) => {
      const bytes = reads.media.get(checkKey(key));
      return bytes === undefined ? null : toBuffer(bytes);
    },
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
