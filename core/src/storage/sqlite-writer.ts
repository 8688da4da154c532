import { Worker } from "node:worker_threads";
import { WRITER_SOURCE } from "./sqlite-writer-thread.js";

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

/** Options of {@link SqliteWriter}. */
export interface SqliteWriterOptions {
  /** The database file (its schema already made). */
  file: string;
  /** The folder it is in, where a failed write asks the file system why. */
  dir: string;
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

/**
 * The size the `-wal` log is cut back to when it is reused after a checkpoint. SQLite checkpoints it at about
 * 4 MB (1,000 pages), so only a change larger than that (an import) makes it grow past this, and only until
 * the next checkpoint.
 */
export const WAL_LIMIT_BYTES = 8 * 1024 * 1024;

interface Pending {
  resolve: () => void;
  reject: (error: Error) => void;
}

type Reply = { done?: number[]; failed?: [number, string, string, string][] };

/**
 * The process's writer thread (`sqlite-writer-thread.ts`), started on the first write of any store, kept
 * referenced only while a message is unanswered (an idle store never keeps a process alive), and started
 * again if it ever ends: what it had not answered fails, and `generation` tells each store to open its
 * database on the new one.
 */
const thread = {
  worker: null as Worker | null,
  generation: 0,
  pending: new Map<number, Pending>(),
  next: 1,
  send(message: Record<string, unknown>): Promise<void> {
    const worker = this.worker ?? this.start();
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      this.queued.push({ ...message, id });
      if (this.queued.length === 1) setImmediate(() => this.post());
    });
  },
  /** What this turn of the event loop sent, posted at its end in one message (so committed in one group). */
  queued: [] as Record<string, unknown>[],
  /** Copied, never transferred: the caller may still hold the bytes it stored. */
  post(): void {
    const messages = this.queued;
    this.queued = [];
    if (messages.length > 0) this.worker?.postMessage(messages);
  },
  start(): Worker {
    const worker = new Worker(WRITER_SOURCE, { eval: true, workerData: { walLimit: WAL_LIMIT_BYTES } });
    worker.unref();
    worker.on("message", (reply: Reply) => {
      for (const id of reply.done ?? []) this.settle(id)?.resolve();
      for (const [id, code, text, sqlite] of reply.failed ?? []) this.settle(id)?.reject(new SqliteWriteError(code, text, sqlite));
    });
    worker.on("error", (error) => this.lost(worker, error));
    worker.on("exit", (code) => this.lost(worker, new Error(`the SQLite writer ended (exit code ${code})`)));
    this.worker = worker;
    this.generation += 1;
    return worker;
  },
  settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    return pending;
  },
  lost(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.queued = [];
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const pending of waiting) pending.reject(error);
  },
};

let databases = 0;

/** Ends the writer thread (tests: the next write of any store starts a new one). */
export async function endWriterThread(): Promise<void> {
  const worker = thread.worker;
  if (worker) await worker.terminate();
}

/**
 * One database's side of the writer thread: {@link write} posts one change (its ops commit together, with
 * the other changes posted meanwhile) and resolves once it is durable. The database is opened on the thread
 * with the first write, and again on a thread started after one that ended.
 */
export class SqliteWriter {
  private readonly db = ++databases;
  private openedOn = 0;
  private closed = false;

  constructor(private readonly options: SqliteWriterOptions) {}

  /** Commits `ops` as one transaction (shared with the other changes posted meanwhile); resolves once durable. */
  write(ops: WriteOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the SQLite store is closed"));
    if (this.openedOn !== thread.generation || !thread.worker) {
      // The thread takes messages in order: the change below waits for the open without a round trip.
      const opening = thread.send({ db: this.db, open: this.options.file, dir: this.options.dir });
      opening.catch(() => {});
      this.openedOn = thread.generation;
    }
    return thread.send({ db: this.db, ops });
  }

  /** Waits for the writes under way, then closes this database's connection on the thread (which checkpoints its log). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.openedOn === thread.generation && thread.worker) await thread.send({ db: this.db, close: true });
  }
}
