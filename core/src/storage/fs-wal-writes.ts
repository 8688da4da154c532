import { statSync } from "node:fs";
import { applyOp, CONFLICT, dirtyPaths, type ApplyContext } from "./fs-wal-apply.js";
import { encodeFrame, type WalOp } from "./fs-wal-frames.js";
import type { WriteAheadLog } from "./fs-wal.js";

/** The read cache as the logged writes keep it (see read-cache.ts). */
interface Cache {
  set(key: string, text: string): void;
  delete(key: string): void;
  clearPrefix(prefix: string): void;
}

/** One write of a group through the log: a text to store, or (`text` null) a removal. */
export interface LoggedGroupOp {
  key: string;
  text: string | null;
}

/** A write durable in the log whose record file is not written yet; `waiters` resolve once it (or a later one) is. */
interface Pending {
  op: Exclude<WalOp, { kind: "clear" }>;
  version: number;
  /** Whether a record file may be at the key before `op` lands (false: known absent, so a removal has nothing to do). */
  onDisk: boolean;
  waiters: { resolve: () => void; reject: (error: unknown) => void }[];
}

/**
 * Record files written at once, through the thread pool. Two leave the pool's other threads to the log's
 * flush and the rest of the server (measured on a shared disk: 8 at once halved the webhook rate).
 */
const WRITERS = 2;

/**
 * The fs driver's writes through its write-ahead log. A call (or a group) is one frame; once the log's
 * flush makes it durable, its new contents are published in `pending` and the promise resolves: reads
 * answer from there, and writers in the background rename each record file into place (per key only the
 * newest content, several keys at once), after which the key leaves `pending`. Key walks and clears first
 * wait for what is pending, so they see every acknowledged write; a checkpoint waits for the same before
 * it flushes the files ({@link WriteAheadLog}).
 */
export function loggedWrites(ctx: ApplyContext, cache: Cache | null) {
  const pending = new Map<string, Pending>();
  const queue: string[] = [];
  const queued = new Set<string>();
  const busy = new Set<string>();
  let version = 0;
  let writers = 0;
  // Keys a commit in flight found absent (no file, no pending write), and whether a write of the key has
  // landed since (then the finding no longer holds). Only this log's writers write record files, and only
  // keys in `pending`, so a key that was not written to its file in between is still absent.
  const checked = new Map<string, { commits: number; spoiled: boolean }>();
  let wal: WriteAheadLog | null = null;
  // A content that could not be written (a full disk): kept in `pending`, tried again at the next settle.
  const failed = new Map<string, unknown>();

  const schedule = (key: string) => {
    if (!queued.has(key)) {
      queued.add(key);
      queue.push(key);
    }
    while (writers < WRITERS && queue.length > 0) {
      writers++;
      void drainQueue().finally(() => writers--);
    }
  };

  async function drainQueue(): Promise<void> {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      queued.delete(key);
      const entry = pending.get(key);
      if (!entry || busy.has(key)) continue; // a writer already has it; it looks again when done
      busy.add(key);
      const { version: at, waiters } = entry;
      entry.waiters = [];
      let landed = false;
      try {
        // A removal of a key whose file was never written (an outbox entry removed before the writers got to
        // its text) touches nothing.
        if (entry.op.kind !== "remove" || entry.onDisk) await applyOp(entry.op, ctx);
        landed = true;
        failed.delete(key);
        for (const w of waiters) w.resolve();
      } catch (error) {
        if (CONFLICT.has((error as NodeJS.ErrnoException).code ?? "")) {
          // The tree refuses it (another write made the key a folder meanwhile); a replay skips it likewise.
          failed.delete(key);
          for (const w of waiters) w.resolve();
        } else {
          failed.set(key, error);
          for (const w of waiters) w.reject(error);
        }
      } finally {
        busy.delete(key);
      }
      const now = pending.get(key);
      // What the disk holds now, for the newer content: the written op's outcome, or unknown after a failure.
      if (now && now.version !== at) now.onDisk = landed ? entry.op.kind !== "remove" : true;
      if (now && now.version !== at) schedule(key);
      else if (now && !failed.has(key)) {
        // Waiters that came while the file was being written are answered by the same write.
        forget(key);
        for (const w of now.waiters) w.resolve();
      }
    }
  }

  /** Resolves once every content pending now is in its record file; rejects if one cannot be written. */
  const settle = (filter?: (key: string) => boolean): Promise<void> => {
    const waits: Promise<void>[] = [];
    for (const [key, entry] of pending) {
      if (filter && !filter(key)) continue;
      waits.push(new Promise((resolve, reject) => entry.waiters.push({ resolve, reject })));
      if (failed.has(key)) schedule(key);
    }
    return Promise.all(waits).then(() => {});
  };

  /**
   * `absent`: no file is at the key (the commit's check found none, and nothing was written to it since).
   */
  const publish = (op: Pending["op"], absent: boolean) => {
    const before = pending.get(op.key);
    if (!before) countFolders(op.key, 1);
    const onDisk = before ? before.onDisk : !absent;
    pending.set(op.key, { op, version: ++version, waiters: before?.waiters ?? [], onDisk });
    if (op.kind === "text") cache?.set(op.key, op.value);
    else cache?.delete(op.key);
    schedule(op.key);
  };

  // Prefixes of the keys in `pending` (how many keys each holds), so a write knows a folder not on disk yet.
  const folders = new Map<string, number>();
  const countFolders = (key: string, by: 1 | -1) => {
    for (let at = key.indexOf(":"); at > 0; at = key.indexOf(":", at + 1)) {
      const folder = key.slice(0, at);
      const n = (folders.get(folder) ?? 0) + by;
      if (n === 0) folders.delete(folder);
      else folders.set(folder, n);
    }
  };
  const forget = (key: string) => {
    const finding = checked.get(key);
    if (finding) finding.spoiled = true;
    pending.delete(key);
    countFolders(key, -1);
  };

  // Refused before it reaches the log, as a direct write would fail: a key that is a folder, or under a
  // record, on disk or among the writes not yet in their files.
  // Returns true when the key has no file and no pending write (what {@link publish} may rely on).
  const check = (op: WalOp): boolean => {
    if (op.kind !== "text" && op.kind !== "bytes") return false;
    const path = ctx.toPath(op.key);
    if (folders.has(op.key)) throw Object.assign(new Error(`EISDIR: the key ${op.key} is a folder of other keys`), { code: "EISDIR" });
    for (let at = op.key.indexOf(":"); at > 0; at = op.key.indexOf(":", at + 1)) {
      const above = pending.get(op.key.slice(0, at));
      if (above && above.op.kind !== "remove") throw Object.assign(new Error(`ENOTDIR: the key ${op.key} is under a record`), { code: "ENOTDIR" });
    }
    // A key with a pending write is a record (or none), not a folder: no need to ask the disk.
    if (pending.has(op.key)) return false;
    const info = statSync(path, { throwIfNoEntry: false });
    if (info?.isDirectory()) throw Object.assign(new Error(`EISDIR: the key ${op.key} is a folder of other keys`), { code: "EISDIR" });
    return info === undefined;
  };
  const watch = (key: string) => {
    const finding = checked.get(key);
    if (finding) finding.commits++;
    else checked.set(key, { commits: 1, spoiled: false });
  };
  const unwatch = (key: string) => {
    const finding = checked.get(key)!;
    if (--finding.commits === 0) checked.delete(key);
  };

  const commit = (ops: WalOp[]): Promise<void> => {
    let absent: boolean[];
    try {
      absent = ops.map(check);
    } catch (error) {
      return Promise.reject(error);
    }
    const watched = ops.filter((_, i) => absent[i]).map((op) => op.key);
    for (const key of watched) watch(key);
    const dirty = ops.flatMap((op) => dirtyPaths(op, ctx));
    return wal!.commit(
      encodeFrame(ops),
      ops,
      async () => {
        for (let i = 0; i < ops.length; i++) {
          const op = ops[i]!;
          if (op.kind !== "clear") {
            publish(op, absent[i]! && !checked.get(op.key)!.spoiled);
            continue;
          }
          // In its place among the writes: what was written under the prefix before it lands first, then goes.
          const inside = (key: string) => op.key === "" || key === op.key || key.startsWith(`${op.key}:`);
          await settle(inside);
          cache?.clearPrefix(op.key);
          await applyOp(op, ctx);
          cache?.clearPrefix(op.key);
        }
      },
      dirty,
    ).finally(() => {
      for (const key of watched) unwatch(key);
    });
  };

  return {
    /** Connects the log (built after this, since it settles through {@link settle}). */
    attach(log: WriteAheadLog) {
      wal = log;
    },
    settle: () => settle(),
    /** The content a write made durable but not yet in its file: a text or bytes, null once removed, undefined when none. */
    peek(key: string): string | Uint8Array | null | undefined {
      const entry = pending.get(key);
      if (!entry) return undefined;
      return entry.op.kind === "remove" ? null : entry.op.value;
    },
    write: (key: string, value: string | Uint8Array): Promise<void> => commit([typeof value === "string" ? { kind: "text", key, value } : { kind: "bytes", key, value }]),
    remove: (key: string): Promise<void> => commit([{ kind: "remove", key }]),
    clear: (prefix: string): Promise<void> => commit([{ kind: "clear", key: prefix }]),
    /** A group commit: all ops in one frame, so a replay applies all of them or none, in order. */
    batch: (group: readonly LoggedGroupOp[]): Promise<void> =>
      commit(group.map((g): WalOp => (g.text === null ? { kind: "remove", key: g.key } : { kind: "text", key: g.key, value: g.text }))),
  };
}
