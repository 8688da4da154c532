import { destr } from "destr";
import type { Storage } from "unstorage";
import type { Stores } from "./create-storage.js";
import { recordProblem, RecordUnreadableError, storedRecordProblem } from "./record-check.js";
import { toTimestamp, type Clock } from "../deps.js";
import { createStorageHealth, toStorageFault, type StorageHealth } from "./storage-faults.js";
import { hasScopedOp, withScopedOp } from "./change-scope.js";
import type { BatchOp } from "./create-storage.js";

/** Options of {@link guardStores}. */
export interface GuardOptions {
  health: StorageHealth;
  /** Where lines about unreadable records go; default stderr. */
  log?: (line: string) => void;
}

const WRITES = ["setItem", "setItemRaw", "setItems", "removeItem", "clear"] as const;
/** Unreadable keys already reported: each is logged once per process, not on every list. */
const REPORTED_MAX = 10_000;

/**
 * The stores with two guarantees added. A write the storage refuses for want of room or rights (a record,
 * media, a batch, an Idempotency-Key claim) throws a {@link StorageFaultError} (507/503 with
 * `details.reason`), which `health` counts and logs once, and a write that goes through ends the fault.
 * A record read from `data` is checked against its kind's schema ({@link recordProblem}): one that fails
 * throws {@link RecordUnreadableError} (GET: 500 naming the id; lists skip it) and is named, with its file,
 * in one log line.
 */
export function guardStores(stores: Stores, options: GuardOptions): Stores {
  const { health } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const reported = new Set<string>();

  const refused = (error: unknown): never => {
    const fault = toStorageFault(error);
    if (!fault) throw error;
    health.refused(fault);
    throw fault;
  };
  // Plain promise handlers rather than an async function: every record write passes here. `wrote` says
  // whether a call that went through did write (a claim that finds a live record only reads).
  const guardWrite = <T>(work: () => Promise<T>, wrote?: (result: T) => boolean): Promise<T> => {
    let pending: Promise<T>;
    try {
      pending = work();
    } catch (error) {
      return Promise.reject(error).catch(refused);
    }
    return pending.then((result) => {
      if (!wrote || wrote(result)) health.succeeded();
      return result;
    }, refused);
  };

  const unreadable = (key: string, problem: string): RecordUnreadableError => {
    if (!reported.has(key) && reported.size < REPORTED_MAX) {
      reported.add(key);
      log(`storage: unreadable record ${key} (${stores.describeKey?.(key) ?? key}): ${problem}; skipped by lists, \`lp doctor --fix\` quarantines it`);
    }
    return new RecordUnreadableError(key, problem);
  };

  const wrap = (storage: Storage, checkReads: boolean): Storage => {
    const guarded = Object.create(storage) as Storage;
    for (const name of WRITES) {
      const original = (storage[name] as (...args: unknown[]) => Promise<unknown>).bind(storage);
      (guarded as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => guardWrite(() => original(...args));
    }
    if (checkReads) {
      const getItem = storage.getItem.bind(storage);
      guarded.getItem = ((key: string, opts?: Record<string, unknown>) =>
        getItem(key, opts).then((value) => {
          const problem = recordProblem(key, value);
          if (problem) throw unreadable(key, problem);
          return value;
        })) as Storage["getItem"];
    }
    return guarded;
  };

  const data = wrap(stores.data, true);
  // A write made inside a change scope (an idempotent request) carries the scope's op in its own batch.
  const { setItem, removeItem } = data;
  const scoped = (op: BatchOp) => withScopedOp([op], (ops) => guardWrite(() => stores.batch(ops)));
  data.setItem = ((key: string, value: unknown, opts?: Record<string, unknown>) =>
    (opts === undefined || Object.keys(opts).length === 0) && hasScopedOp() ? scoped({ key, value }) : setItem(key, value as never, opts)) as Storage["setItem"];
  data.removeItem = ((key: string, opts?: Record<string, unknown>) =>
    opts === undefined && hasScopedOp() ? scoped({ key, remove: true }) : removeItem(key, opts as never)) as Storage["removeItem"];
  const claims = stores.claims;
  (data as Storage & { [REPORT]?: typeof unreadable })[REPORT] = unreadable;
  return {
    ...stores,
    data,
    media: wrap(stores.media, false),
    batch: (ops, fence) => withScopedOp(ops, (all) => guardWrite(() => stores.batch(all, fence))),
    // The Idempotency-Key claims of a shared store write too (the executing marker, then the response).
    ...(claims && {
      claims: {
        claim: (key, marker, now) => guardWrite(() => claims.claim(key, marker, now), (live) => live === null),
        finish: (key, owner, record) => guardWrite(() => claims.finish(key, owner, record)),
        sweep: (key, now) => guardWrite(() => claims.sweep(key, now)),
      },
    }),
  };
}

const REPORT = Symbol("lp.reportUnreadable");

/**
 * Checks a record a reader parsed from its text itself (`readText`, whose readers memoise what they derive),
 * as the guarded `getItem` does: throws {@link RecordUnreadableError}, logged once when `storage` is guarded.
 */
export function assertReadable(storage: Storage, key: string, value: unknown): void {
  const problem = storedRecordProblem(key, value);
  if (!problem) return;
  const report = (storage as Storage & { [REPORT]?: (key: string, problem: string) => RecordUnreadableError })[REPORT];
  throw report ? report(key, problem) : new RecordUnreadableError(key, problem);
}

/**
 * The record stored as `text` at `key`, parsed as the store's own reads parse (`destr`: a text that is not
 * JSON stays a string) and checked by {@link assertReadable}: for readers that read texts themselves.
 */
export function parseStoredRecord<T>(storage: Storage, key: string, text: string): T {
  const record = destr<T>(text);
  assertReadable(storage, key, record);
  return record;
}

/** The entry `toEntry` makes of the record stored as `text`, or null for a record lists leave out (deleted, or unreadable: then named once in the log). */
export function entryFromText<E>(storage: Storage, key: string, text: string, toEntry: (record: never) => E | null): E | null {
  try {
    return toEntry(parseStoredRecord<never>(storage, key, text));
  } catch {
    return null;
  }
}

/**
 * The health watch of `raw`'s writes: named by the data dir or Redis, with a probe that writes `meta:probe`
 * through the unguarded store (a probe that fails is not a refused client write).
 */
export function watchStorage(raw: Stores, options: { clock: Clock; log?: (line: string) => void; every?: (ms: number, run: () => void) => () => void }): StorageHealth {
  return createStorageHealth({
    where: raw.where ?? `${raw.kind} storage`,
    log: options.log,
    now: () => options.clock.now(),
    every: options.every,
    probe: () => raw.data.setItem("meta:probe", { checked_at: toTimestamp(options.clock.now()) }),
  });
}
