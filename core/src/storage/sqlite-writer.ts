import { once } from "node:events";
import { Worker } from "node:worker_threads";

/**
 * One change the writer applies, as an array (cheap to post): a record's text (`parent` is its key up to the
 * last `:`), its removal, the removal of a key range, the same three for media bytes, and `wipe` (every
 * record but the `meta:` ones, and every media file: the first step of an import).
 */
export type WriteOp =
  | ["put", string, string, string]
  | ["del", string]
  | ["clear", string, string | null]
  | ["media", string, Uint8Array]
  | ["mdel", string]
  | ["mclear", string, string | null]
  | ["wipe"];

/**
 * The writer thread's program. It runs in a worker so that a commit's fsync never holds the server's event
 * loop: the loop posts the ops of each change and goes on; the writer commits every change that arrived
 * while it was busy in one transaction (a group commit: one fsync for them all, synchronous=FULL), then
 * answers each. A group that fails is applied again one change per transaction, so one bad change never
 * fails the others. On a failure that looks like the disk (full, read-only, forbidden), it asks the file
 * system itself with a one-byte write beside the database, and reports that errno (ENOSPC, EDQUOT, EROFS,
 * EACCES), which the guarded stores turn into a 507 or 503.
 * Plain JavaScript run with `eval`: the bundles that ship lp need no separate file for it.
 */
const WRITER_SOURCE = String.raw`
const { workerData, parentPort } = require("node:worker_threads");
const { writeFileSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 5000 });
db.pragma("synchronous = FULL");
const q = {
  put: db.prepare("INSERT INTO records (key, parent, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET parent = excluded.parent, value = excluded.value"),
  del: db.prepare("DELETE FROM records WHERE key = ?"),
  clearFrom: db.prepare("DELETE FROM records WHERE key >= ? AND key < ?"),
  clearAll: db.prepare("DELETE FROM records WHERE key >= ?"),
  media: db.prepare("INSERT INTO media (key, bytes) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes"),
  mdel: db.prepare("DELETE FROM media WHERE key = ?"),
  mclearFrom: db.prepare("DELETE FROM media WHERE key >= ? AND key < ?"),
  mclearAll: db.prepare("DELETE FROM media WHERE key >= ?"),
  wipe: db.prepare("DELETE FROM records WHERE key < 'meta:' OR key >= 'meta;'"),
  wipeMedia: db.prepare("DELETE FROM media"),
};
function apply(ops) {
  for (const op of ops) {
    switch (op[0]) {
      case "put": q.put.run(op[1], op[2], op[3]); break;
      case "del": q.del.run(op[1]); break;
      case "clear": op[2] === null ? q.clearAll.run(op[1]) : q.clearFrom.run(op[1], op[2]); break;
      case "media": q.media.run(op[1], op[2]); break;
      case "mdel": q.mdel.run(op[1]); break;
      case "mclear": op[2] === null ? q.mclearAll.run(op[1]) : q.mclearFrom.run(op[1], op[2]); break;
      case "wipe": q.wipe.run(); q.wipeMedia.run(); break;
      default: throw new Error("unknown write op " + op[0]);
    }
  }
}
const group = db.transaction((changes) => { for (const change of changes) apply(change.ops); });
const one = db.transaction((ops) => apply(ops));
function errnoOfDisk() {
  const probe = join(workerData.dir, ".lp-write-probe");
  try { writeFileSync(probe, "x", { mode: 0o600 }); rmSync(probe, { force: true }); return null; } catch (error) { return error.code || null; }
}
function failure(error) {
  const code = String((error && error.code) || "");
  let sys = null;
  if (/^SQLITE_(FULL|IOERR|READONLY|CANTOPEN|PERM|AUTH)/.test(code)) {
    sys = errnoOfDisk() || (code.startsWith("SQLITE_FULL") ? "ENOSPC" : code.startsWith("SQLITE_READONLY") ? "EROFS" : null);
  }
  if (db.inTransaction) { try { db.exec("ROLLBACK"); } catch {} }
  return [sys || code || "EUNKNOWN", String((error && error.message) || error), code];
}
let queue = [];
let scheduled = false;
function flush() {
  scheduled = false;
  const changes = queue;
  queue = [];
  if (changes.length === 0) return;
  const done = [];
  const failed = [];
  try {
    group(changes);
    for (const change of changes) done.push(change.id);
  } catch (error) {
    if (changes.length === 1) failed.push([changes[0].id, ...failure(error)]);
    else for (const change of changes) {
      try { one(change.ops); done.push(change.id); } catch (inner) { failed.push([change.id, ...failure(inner)]); }
    }
  }
  parentPort.postMessage({ done, failed });
}
parentPort.on("message", (message) => {
  if (message === "close") {
    flush();
    db.close();
    parentPort.postMessage({ closed: true });
    parentPort.close();
    return;
  }
  queue.push(message);
  if (!scheduled) { scheduled = true; setImmediate(flush); }
});
`;

/** Options of {@link SqliteWriter}. */
export interface SqliteWriterOptions {
  /** The database file (its schema already made). */
  file: string;
  /** The folder it is in, where a failed write asks the file system why. */
  dir: string;
  /** Where the better-sqlite3 package's entry is, so the worker loads the same one. */
  driver: string;
}

/** A write the writer refused, with the errno (or SQLite code) it saw: what `toStorageFault` reads. */
export class SqliteWriteError extends Error {
  readonly code: string;
  readonly sqliteCode: string;
  constructor(code: string, message: string, sqliteCode: string) {
    super(message);
    this.name = "SqliteWriteError";
    this.code = code;
    this.sqliteCode = sqliteCode;
  }
}

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The main thread's side of the writer: {@link write} posts one change (its ops commit together) and
 * resolves once it is durable. The worker is started on the first write, kept referenced only while a write
 * is pending (an idle store never keeps a process alive), and started again if it ever dies.
 */
export class SqliteWriter {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private closed = false;

  constructor(private readonly options: SqliteWriterOptions) {}

  /** Commits `ops` as one transaction (shared with the other changes posted meanwhile); resolves once durable. */
  write(ops: WriteOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the SQLite store is closed"));
    const worker = this.worker ?? this.start();
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      // Copied, never transferred: the caller may still hold the bytes it stored.
      worker.postMessage({ id, ops });
    });
  }

  /** Waits for the writes under way, then closes the writer's connection (which checkpoints the log). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    const exited = once(worker, "exit");
    worker.postMessage("close");
    await exited;
  }

  private start(): Worker {
    const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: this.options });
    worker.unref();
    worker.on("message", (message: { done?: number[]; failed?: [number, string, string, string][] }) => {
      for (const id of message.done ?? []) this.settle(id)?.resolve();
      for (const [id, code, text, sqlite] of message.failed ?? []) this.settle(id)?.reject(new SqliteWriteError(code, text, sqlite));
    });
    worker.on("error", (error) => this.lost(worker, error));
    worker.on("exit", (code) => this.lost(worker, new Error(`the SQLite writer ended (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    return pending;
  }

  /** The worker ended or threw: what it had not answered fails, and the next write starts a new one. */
  private lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const pending of waiting) pending.reject(error);
  }
}
