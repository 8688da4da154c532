import { closeSync, fdatasync, ftruncateSync, mkdirSync, openSync, write, writeSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { DIR_MODE, FILE_MODE } from "./fs-io.js";
import { fsyncDir, makeDurable } from "./fs-wal-durable.js";
import type { OpKey } from "./fs-wal-frames.js";

const fdatasyncAsync = promisify(fdatasync);
const writeAsync = (fd: number, buffer: Buffer, offset: number, length: number, position: number) =>
  new Promise<number>((resolve, reject) => write(fd, buffer, offset, length, position, (error, written) => (error ? reject(error) : resolve(written))));

/** Limits of a {@link WriteAheadLog}. */
export interface WalLimits {
  /** A segment this large is checkpointed (default 4 MiB). */
  segmentBytes: number;
  /** A segment with entries is checkpointed this long after its first one at the latest (default 1 s). */
  checkpointMs: number;
  /** While a checkpoint runs, the next segment may grow to this size; then writers wait (default 64 MiB). */
  maxBytes: number;
}

const DEFAULTS: WalLimits = { segmentBytes: 4 << 20, checkpointMs: 1000, maxBytes: 64 << 20 };

interface Entry {
  frame: Buffer;
  /** The frame's ops, for the key sink. */
  ops: readonly OpKey[];
  apply: () => void | Promise<void>;
  dirty: readonly string[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Segment {
  path: string;
  size: number;
  /** Files and folders the entries of this segment changed (flushed one by one where syncfs is missing). */
  dirty: Set<string>;
}

/** Told of each durable frame's ops; `persist` records their keys before a checkpoint's flush (fs-key-journal.ts), or rejects to fail it. */
export interface WalKeySink {
  note(ops: readonly OpKey[]): void;
  persist(): Promise<readonly string[]>;
}

/** Bytes of a new segment written with zeros up front (at most). */
const PREALLOCATED = 4 << 20;

/** Segment files are named by a zero-padded sequence number, so the names sort in the order written. */
export const segmentName = (seq: number): string => `${String(seq).padStart(16, "0")}.log`;

/**
 * The fs driver's write-ahead log (`<base>/.wal/`). `commit(frame, apply)` appends the frame, and one
 * fdatasync covers every frame appended since the last one: while a flush is in flight, later commits
 * wait and share the next. Only once the frame is durable is `apply` run (the driver renames the new
 * texts into place, without flushing them), in the order of the commits, and then the commit resolves.
 * A checkpoint, when a segment reaches `segmentBytes` or `checkpointMs` after its first entry, starts a
 * new segment, makes what the old one's entries applied durable ({@link makeDurable}) and deletes it;
 * while it runs the new segment may reach `maxBytes`, after which commits wait for it. So at most two
 * segments exist, and what start-up replays is bounded by `maxBytes` plus one segment.
 */
export class WriteAheadLog {
  private readonly limits: WalLimits;
  private seq = 0;
  private current: Segment | null = null;
  private queue: Entry[] = [];
  private running: Promise<void> | null = null;
  private checkpointing: Promise<void> | null = null;
  /** Segments left to checkpoints, oldest first, kept until their writes are durable. */
  private readonly retired: Segment[] = [];
  private checkpointError: unknown = null;
  private rotateWanted = false;
  private timer: NodeJS.Timeout | null = null;

  /**
   * `dir` holds the segments; `root` is the folder whose files the entries change. `settle` returns a
   * promise that resolves once every entry applied so far has reached the record files (they may be
   * written after `apply` returns), or rejects when one of them could not be written.
   */
  constructor(
    private readonly dir: string,
    private readonly root: string,
    private readonly settle: () => Promise<void>,
    limits: Partial<WalLimits> = {},
    firstSeq = 1,
    private readonly keys?: WalKeySink,
  ) {
    this.limits = { ...DEFAULTS, ...limits };
    this.seq = firstSeq;
  }

  /**
   * Appends `frame`, waits until it is durable, runs `apply` and resolves; rejects (without running
   * `apply`) when the log cannot be written, or with `apply`'s error. `ops` are the frame's ops (their
   * keys go to the key sink), `dirty` names what `apply` changes.
   */
  commit(frame: Buffer, ops: readonly OpKey[], apply: () => void | Promise<void>, dirty: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ frame, ops, apply, dirty, resolve, reject });
      this.kick();
    });
  }

  /** Waits for every commit so far, then checkpoints: afterwards no segment is left and every write is durable. */
  async close(): Promise<void> {
    while (this.running || this.checkpointing) await (this.running ?? this.checkpointing);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.current) this.retired.push(this.current);
    this.current = null;
    if (this.retired.length > 0) await this.checkpoint(this.settle());
  }

  private kick(): void {
    this.running ??= this.run().finally(() => {
      this.running = null;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 || this.rotateWanted) {
      const full = this.current !== null && this.current.size >= this.limits.segmentBytes;
      if ((this.rotateWanted || full) && this.current && this.current.size > 0) {
        if (this.checkpointing && this.current.size >= this.limits.maxBytes) await this.checkpointing;
        if (!this.checkpointing) this.rotate();
      }
      this.rotateWanted = false;
      if (this.queue.length === 0) break;
      const batch = this.queue.splice(0);
      try {
        await this.append(batch);
      } catch (error) {
        for (const entry of batch) entry.reject(error);
        continue;
      }
      // In commit order, each once the previous one is applied: a record written twice ends with the later text.
      for (const entry of batch) {
        try {
          await entry.apply();
          entry.resolve();
        } catch (error) {
          entry.reject(error);
        }
      }
    }
  }

  /** Writes the batch's frames to the current segment and flushes it; on failure the segment is cut back. */
  private async append(batch: readonly Entry[]): Promise<void> {
    if (this.checkpointError) {
      // A checkpoint could not make its writes durable: refuse new ones until one succeeds.
      const error = this.checkpointError;
      this.checkpointError = null;
      this.rotateWanted = true;
      throw error;
    }
    const segment = this.current ?? (await this.open());
    const bytes = batch.length === 1 ? batch[0].frame : Buffer.concat(batch.map((e) => e.frame));
    const before = segment.size;
    // Open only while it is written: a log held open for writing would keep the file system from being
    // remounted read-only by its administrator.
    let fd = -1;
    try {
      fd = openSync(segment.path, "r+");
      for (let at = 0; at < bytes.byteLength; ) at += writeSync(fd, bytes, at, bytes.byteLength - at, before + at);
      await fdatasyncAsync(fd);
      closeSync(fd);
    } catch (error) {
      // The frame may be partly written, or whole but not known durable: blank its header so a replay stops
      // there (its callers are told it failed), and write on in a fresh segment.
      try {
        if (fd >= 0) {
          writeSync(fd, Buffer.alloc(12), 0, 12, before);
          closeSync(fd);
        }
      } catch {
        // A replay stops at the torn frame anyway.
      }
      segment.size = Number.MAX_SAFE_INTEGER;
      this.rotateWanted = true;
      throw error;
    }
    segment.size += bytes.byteLength;
    for (const entry of batch) for (const path of entry.dirty) segment.dirty.add(path);
    if (this.keys) for (const entry of batch) this.keys.note(entry.ops);
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.rotateWanted = true;
        this.kick();
      }, this.limits.checkpointMs);
      this.timer.unref();
    }
  }

  /** A new, empty segment whose name is durable in the log's folder before anything relies on it. */
  private async open(): Promise<Segment> {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    const path = join(this.dir, segmentName(this.seq++));
    const fd = openSync(path, "wx", FILE_MODE);
    try {
      // Written with zeros up front: appends inside it then change no file size, so each commit's
      // fdatasync flushes the data alone instead of forcing a file-system journal commit (which every
      // rename and file creation of the record writes would otherwise queue behind). A replay stops at
      // the first zero header.
      const zeros = Buffer.alloc(Math.min(this.limits.segmentBytes, PREALLOCATED));
      try {
        for (let at = 0; at < zeros.byteLength; ) at += await writeAsync(fd, zeros, at, zeros.byteLength - at, at);
      } catch (error) {
        // Short of room for it (a small disk): the segment grows with its frames instead.
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC" && (error as NodeJS.ErrnoException).code !== "EDQUOT") throw error;
        ftruncateSync(fd, 0);
      }
      await fdatasyncAsync(fd);
      closeSync(fd);
      await fsyncDir(this.dir);
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
      await unlink(path).catch(() => {});
      throw error;
    }
    this.current = { path, size: 0, dirty: new Set() };
    return this.current;
  }

  /** Leaves the current segment to a checkpoint; the next commit opens a new one. */
  private rotate(): void {
    this.retired.push(this.current!);
    this.current = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.checkpointing = this.checkpoint(this.settle())
      .catch((error: unknown) => {
        this.checkpointError = error;
      })
      .finally(() => {
        this.checkpointing = null;
        if (this.queue.length > 0) this.kick();
      });
  }

  /**
   * Every entry of the retired segments is applied (the log applies in order and rotates between
   * batches), and `landed` says when their files are written: then flush what they changed, then delete the segments, oldest first, and flush their removal.
   * A segment whose flush failed is kept and retried with the next checkpoint, and no newer one is deleted
   * before it, so replay never applies an older segment after a newer one's writes were dropped.
   */
  private async checkpoint(landed: Promise<void>): Promise<void> {
    const segments = [...this.retired];
    await landed;
    const dirty = new Set<string>();
    for (const segment of segments) for (const path of segment.dirty) dirty.add(path);
    // Their keys recorded first, so the flush below covers them and no segment goes before they are.
    for (const path of (await this.keys?.persist()) ?? []) dirty.add(path);
    if (segments.some((s) => s.size > 0)) await makeDurable(this.root, dirty);
    for (const segment of segments) {
      await unlink(segment.path).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
      this.retired.shift();
      await fsyncDir(this.dir);
    }
  }
}
