import type { Storage } from "unstorage";
import type { BatchFence, BatchOp, Stores } from "../storage/create-storage.js";
import type { SnapshotBytes } from "../lists/index-snapshot.js";

/** What a {@link faultyStores} refuses: every write (no `keys`), or only those of the keys `keys` accepts. */
export interface WriteFault {
  /** The system's code the refused writes carry (`ENOSPC`, `EROFS`, `EACCES`). */
  errno: string;
  /** Refuse only writes that touch a key it accepts (record keys of `data`, paths of `media`). */
  keys?: (key: string) => boolean;
}

/** Names of the Storage methods that write. */
const WRITES = ["setItem", "setItemRaw", "setItems", "removeItem", "clear"] as const;

/**
 * `stores` with a switch that makes their writes fail as a full, read-only or forbidden disk makes them
 * fail: an error with the system's code, thrown before the write reaches the store. Every way a write goes
 * is covered (records and media one by one or in groups, `batch`, the Redis claims of Idempotency-Keys, list
 * snapshots), so a path the switch missed cannot pass a test by writing anyway. Reads always go through.
 * `refused` counts the writes turned away.
 */
export function faultyStores(stores: Stores) {
  let fault: WriteFault | null = null;
  const state = { refused: 0 };
  const error = (what: string) => {
    state.refused++;
    return Object.assign(new Error(`${fault!.errno}: injected write fault, ${what}`), { code: fault!.errno });
  };
  /** The error for a write of `keys`, or null when the fault lets it through. */
  const check = (what: string, keys: readonly string[]): Error | null => {
    if (!fault) return null;
    if (fault.keys && !keys.some((key) => fault!.keys!(key))) return null;
    return error(`${what} ${keys.join(", ") || "(all)"}`);
  };
  const keysOf = (name: (typeof WRITES)[number], args: unknown[]): string[] => {
    if (name === "setItems") return (args[0] as Array<{ key: string }>).map((item) => item.key);
    return typeof args[0] === "string" ? [args[0]] : [];
  };

  const wrap = (storage: Storage): Storage => {
    const faulty = Object.create(storage) as Storage;
    for (const name of WRITES) {
      const original = (storage[name] as (...args: unknown[]) => Promise<unknown>).bind(storage);
      (faulty as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        const refused = check(name, keysOf(name, args));
        return refused ? Promise.reject(refused) : original(...args);
      };
    }
    return faulty;
  };

  // `keysOf` names the keys a call writes, for a fault limited to some keys.
  const guardAsync =
    <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>, keysOf: (args: A) => string[]) =>
    (...args: A): Promise<R> => {
      const refused = check(what, keysOf(args));
      return refused ? Promise.reject(refused) : fn(...args);
    };

  const { claims, indexSnapshots: snapshots } = stores;
  const faultyStores: Stores = {
    ...stores,
    data: wrap(stores.data),
    media: wrap(stores.media),
    batch: guardAsync("batch", (ops: readonly BatchOp[], fence?: BatchFence) => stores.batch(ops, fence), ([ops]) => ops.map((op) => op.key)),
    ...(claims && {
      claims: {
        claim: guardAsync("claim", (key: string, marker: string, now: string) => claims.claim(key, marker, now), ([key]) => [key]),
        finish: guardAsync("finish", (key: string, owner: string, record: string | null) => claims.finish(key, owner, record), ([key]) => [key]),
        sweep: guardAsync("sweep", (key: string, now: string) => claims.sweep(key, now), ([key]) => [key]),
      },
    }),
    ...(snapshots && {
      indexSnapshots: {
        ...snapshots,
        write: guardAsync("snapshot", (prefix: string, bytes: SnapshotBytes) => snapshots.write(prefix, bytes), ([prefix]) => [prefix]),
        remove: guardAsync("snapshot removal", (prefix: string) => snapshots.remove(prefix), ([prefix]) => [prefix]),
        removeAll: guardAsync("snapshot removal", () => snapshots.removeAll(), () => []),
      },
    }),
  };

  return {
    stores: faultyStores,
    /** Writes refused so far. */
    state,
    /** From now on writes fail with `fault` (ENOSPC: a full disk). */
    refuse(next: WriteFault = { errno: "ENOSPC" }): void {
      fault = next;
    },
    /** Writes go through again (room was made, the disk is writable again). */
    heal(): void {
      fault = null;
    },
  };
}
