import type { Driver, Storage } from "unstorage";
import type { BatchOp } from "./create-storage.js";

const SYNC_BATCH = Symbol("lp.syncBatch");
type SyncBatch = (ops: readonly BatchOp[]) => boolean;

/**
 * The text unstorage would store for `value` when that is plain JSON (a string, a plain object or an array),
 * else undefined (unstorage's own path decides).
 */
function toStoredText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value === null || typeof value !== "object") return undefined;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value) ? JSON.stringify(value) : undefined;
}

/**
 * Gives `storage` (over the single `driver`) the write side of the read shortcut of `toStorage`: a key in
 * unstorage's normal form (`plainKey`) with a plain object, array or string goes to the driver as unstorage
 * would send it (the same JSON text), without normalising the key, finding the mount and wrapping the call
 * in extra promises. Nothing watches these stores; once something does, unstorage's own path (which tells
 * the watchers) takes every write again.
 */
export function installDirectWrites(storage: Storage, driver: Driver, plainKey: RegExp): void {
  const setItem = storage.setItem.bind(storage);
  const removeItem = storage.removeItem.bind(storage);
  const watch = storage.watch.bind(storage);
  let watched = false;
  storage.watch = ((callback) => {
    watched = true;
    return watch(callback);
  }) as Storage["watch"];
  const writeDriver = driver.setItem?.bind(driver);
  const removeDriver = driver.removeItem?.bind(driver);
  storage.setItem = ((key: string, value: unknown, opts?: Record<string, unknown>) => {
    const text = watched || typeof key !== "string" || !plainKey.test(key) ? undefined : toStoredText(value);
    if (text === undefined || !writeDriver) return setItem(key, value as never, opts);
    try {
      return Promise.resolve(writeDriver(key, text, opts ?? {})).then(() => {});
    } catch (error) {
      return Promise.reject(error);
    }
  }) as Storage["setItem"];
  storage.removeItem = ((key: string, opts?: Record<string, unknown> | boolean) => {
    if (watched || !removeDriver || opts !== undefined || typeof key !== "string" || !plainKey.test(key)) return removeItem(key, opts as never);
    try {
      return Promise.resolve(removeDriver(key, {})).then(() => {});
    } catch (error) {
      return Promise.reject(error);
    }
  }) as Storage["removeItem"];
  // For the memory driver, which writes synchronously: every op applied at once, in order, when all of them
  // can take the direct path; false (nothing written) otherwise.
  if (driver.name !== "memory") return;
  (storage as Storage & { [SYNC_BATCH]: SyncBatch })[SYNC_BATCH] = (ops) => {
    if (watched || !writeDriver || !removeDriver) return false;
    const texts: (string | null)[] = [];
    for (const op of ops) {
      if (typeof op.key !== "string" || !plainKey.test(op.key)) return false;
      const text = "remove" in op ? null : toStoredText(op.value);
      if (text === undefined) return false;
      texts.push(text);
    }
    for (let i = 0; i < ops.length; i++) {
      const text = texts[i];
      if (text === null) removeDriver(ops[i].key, {});
      else writeDriver(ops[i].key, text, {});
    }
    return true;
  };
}

/**
 * A batch on a storage over a driver that writes synchronously (the memory store), applied in one go, in
 * order, with no promise per op: every delivery of the webhook engine writes through here. Resolves to false,
 * having written nothing, when some op cannot take the direct path (another spelling of a key, a value
 * unstorage serialises itself): the caller then applies them one by one.
 */
export function directBatch(storage: Storage, ops: readonly BatchOp[]): Promise<boolean> {
  const direct = (storage as Storage & { [SYNC_BATCH]?: SyncBatch })[SYNC_BATCH];
  try {
    return Promise.resolve(direct?.(ops) ?? false);
  } catch (error) {
    return Promise.reject(error);
  }
}
