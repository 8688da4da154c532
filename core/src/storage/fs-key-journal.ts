import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { open, unlink } from "node:fs/promises";
import { join } from "node:path";
import { DIR_MODE, FILE_MODE } from "./fs-io.js";
import { JOURNAL_FILE, lineOf, MAX_BYTES, readJournal, syncDir, writeJournalHeader } from "./fs-key-journal-file.js";
import type { OpKey } from "./fs-wal-frames.js";

export { JOURNAL_FILE } from "./fs-key-journal-file.js";

/** Distinct keys past which the journal gives up (and is removed): re-reading that many is no quicker than a check of the files. */
const MAX_KEYS = 50_000;
/** Snapshots a clean stop names in the header at most. */
const MAX_SEALED = 4096;

/** What a journal line holds of an op: its key, or `*` and the prefix of a clear. */
const tokenOf = (op: OpKey) => (op.kind === "clear" ? `*${op.key}` : op.key);
const markerOf = (gen: string) => `keys-${gen}.mark`;
/** Whether a name in the driver's `.tmp` is the journal's marker rather than a write's temporary file. */
export const isJournalMarker = (name: string): boolean => /^keys-[0-9a-f]{32}\.mark$/.test(name);

/**
 * The keys of the data folder written since a point in time (a generation), kept durably so that a list
 * index persisted before a kill can be corrected by reading only the records written since, instead of
 * checking every file of its collection (`fs-index-snapshots.ts`).
 *
 * The file (`<base>/.wal/keys.journal`, 0600) is a header line (the generation's random id, and the tokens
 * of the snapshots a clean stop found exact when it began the generation) and then one line per write-ahead
 * log checkpoint: the keys its segments' frames touched that were not listed yet, with a CRC-32. Each line
 * is appended before the checkpoint's flush of the file system and the deletion of its segments; the start's
 * replay appends the replayed frames' keys before it deletes them. So every key written since the generation
 * began is in the file or in a segment still on disk, which the next start replays.
 *
 * A generation is carried on by the next start only when its marker (`<base>/.tmp/keys-<gen>.mark`) is
 * still there: every start of every lp version empties `.tmp`, and only a start that journals puts the
 * marker back, so a process that wrote the folder without journaling (an older lp, or one without the log)
 * ends the generation. A journal past its caps, or one that cannot be written, is removed: then nothing is
 * covered, and snapshots fall back to the check of the files.
 */
export class KeyJournal {
  private gen: string | null = null;
  private sealed: Record<string, string> = {};
  /** Tokens in the file. */
  private readonly durable = new Set<string>();
  /** Tokens of frames the log made durable that the file does not list yet. */
  private noted = new Set<string>();
  private size = 0;
  private overflowed = false;
  readonly path: string;
  private readonly walDir: string;
  private readonly tmpDir: string;

  /** `base` is the data folder (the fs driver's base, whose log is in `.wal/`). */
  constructor(base: string) {
    this.walDir = join(base, ".wal");
    this.tmpDir = join(base, ".tmp");
    this.path = join(this.walDir, JOURNAL_FILE);
  }

  /** The current generation's id (what a snapshot's stamp names), or null when nothing is journaled. */
  get generation(): string | null {
    return this.overflowed ? null : this.gen;
  }

  /**
   * At start, before the driver empties `.tmp`: carries on the generation on disk when its marker says no
   * other start came between, otherwise begins a new one. A folder that cannot be written journals nothing.
   */
  open(): void {
    try {
      const found = this.load();
      if (found && existsSync(join(this.tmpDir, markerOf(found)))) return;
      this.begin({});
    } catch {
      this.disable();
    }
  }

  /** After the driver emptied `.tmp`: the marker that lets the next start carry the generation on. */
  mark(): void {
    if (!this.gen) return;
    try {
      mkdirSync(this.tmpDir, { recursive: true, mode: DIR_MODE });
      writeFileSync(join(this.tmpDir, markerOf(this.gen)), "", { mode: FILE_MODE });
    } catch {
      this.disable();
    }
  }

  /** Notes the keys of a frame's ops the log made durable (appended at the next {@link persist}). */
  note(ops: readonly OpKey[]): void {
    if (!this.gen || this.overflowed) return;
    for (const op of ops) {
      const token = tokenOf(op);
      if (!this.durable.has(token)) this.noted.add(token);
    }
    if (this.durable.size + this.noted.size > MAX_KEYS) {
      this.overflowed = true;
      this.noted.clear();
    }
  }

  /**
   * The start's replay: appends the replayed frames' keys before their segments are deleted. Returns the
   * paths the replay's flush must cover where syncfs is missing.
   */
  replayed(ops: readonly OpKey[]): string[] {
    if (!this.gen) return [];
    const tokens = [...new Set(ops.map(tokenOf))].filter((t) => !this.durable.has(t));
    if (tokens.length === 0) return [];
    if (this.overflowed || this.durable.size + tokens.length > MAX_KEYS) return this.dropSync();
    const line = Buffer.from(lineOf(tokens));
    if (this.size + line.byteLength > MAX_BYTES) return this.dropSync();
    try {
      const fd = openSync(this.path, "r+");
      try {
        writeSync(fd, line, 0, line.byteLength, this.size);
      } finally {
        closeSync(fd);
      }
    } catch {
      // No room for them (a full disk): the start goes on without a journal rather than not at all.
      return this.dropSync();
    }
    this.size += line.byteLength;
    for (const t of tokens) this.durable.add(t);
    return [this.path];
  }

  /**
   * The log's checkpoint, before it flushes the file system and deletes its segments: appends the keys
   * noted since the last one. Rejects when they cannot be written (the checkpoint then keeps its
   * segments); resolves with the paths the flush must cover where syncfs is missing.
   */
  async persist(): Promise<string[]> {
    if (!this.gen) return [];
    if (this.overflowed) return this.drop();
    // The file is named even with nothing to add: a line appended in a checkpoint that flushed nothing is flushed now.
    if (this.noted.size === 0) return [this.path];
    const tokens = [...this.noted];
    this.noted = new Set();
    const line = Buffer.from(lineOf(tokens));
    if (this.size + line.byteLength > MAX_BYTES) return this.drop();
    let handle;
    try {
      handle = await open(this.path, "r+");
    } catch (error) {
      for (const t of tokens) this.noted.add(t);
      // Gone with the folder an import swapped in: nothing of the new folder is journaled.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return (this.disable(), []);
      throw error;
    }
    try {
      await handle.write(line, 0, line.byteLength, this.size);
    } catch (error) {
      for (const t of tokens) this.noted.add(t);
      // Cut back, so the next append follows whole lines; failing that, the journal is given up.
      await handle.truncate(this.size).catch(() => this.drop().catch(() => {}));
      throw error;
    } finally {
      await handle.close();
    }
    this.size += line.byteLength;
    for (const t of tokens) this.durable.add(t);
    return [this.path];
  }

  /**
   * The names of the records under `prefix` written since a snapshot, when the journal covers it: the
   * snapshot was stamped in this generation (`gen`), or a clean stop found it exact (`token`) when the
   * generation began. Null when it does not, or when a clear removed the collection's folder since.
   */
  changedUnder(prefix: string, token: string, gen: string | undefined): string[] | null {
    if (!this.gen || this.overflowed) return null;
    if (gen !== this.gen && this.sealed[prefix] !== token) return null;
    return this.namesUnder(prefix);
  }

  /** The names of the records under `prefix` the journal holds, whatever snapshot it covers (null as above). */
  namesUnder(prefix: string): string[] | null {
    if (!this.gen || this.overflowed) return null;
    const names = new Set<string>();
    for (const set of [this.durable, this.noted]) {
      for (const t of set) {
        const key = t.startsWith("*") ? t.slice(1) : t;
        if (t.startsWith("*") && (key === "" || key === prefix || prefix.startsWith(`${key}:`))) return null;
        if (key.length > prefix.length + 1 && key.startsWith(`${prefix}:`) && !key.includes(":", prefix.length + 1)) names.add(key.slice(prefix.length + 1));
      }
    }
    return [...names];
  }

  /**
   * At a clean stop, once the log is checkpointed (nothing is left to replay): begins a new generation
   * naming `sealed`, the snapshots (by prefix, their tokens) found exact for their folders now.
   */
  reseal(sealed: Record<string, string>): void {
    const previous = this.gen;
    try {
      this.begin(Object.fromEntries(Object.entries(sealed).slice(0, MAX_SEALED)));
      if (previous) rmSync(join(this.tmpDir, markerOf(previous)), { force: true });
      this.mark();
    } catch {
      // The previous generation stays as it was on disk, and covers what it covered.
      this.gen = null;
    }
  }

  /** Takes the file on disk as the current generation when it is whole enough; returns its id, or null. */
  private load(): string | null {
    const read = readJournal(this.path, MAX_KEYS);
    if (!read) return null;
    this.gen = read.header.gen;
    this.sealed = read.header.sealed;
    this.durable.clear();
    for (const t of read.tokens) this.durable.add(t);
    this.size = read.size;
    return read.header.gen;
  }

  /** Writes a new generation's file and makes it current. */
  private begin(sealed: Record<string, string>): void {
    const gen = randomBytes(16).toString("hex");
    const size = writeJournalHeader(this.walDir, this.path, { lp_keys: 1, gen, sealed });
    this.gen = gen;
    this.sealed = sealed;
    this.durable.clear();
    this.overflowed = false;
    this.size = size;
  }

  private disable(): void {
    this.gen = null;
    this.noted.clear();
  }

  /** Gives the journal up: its file removed before any segment whose keys it lacks is. */
  private async drop(): Promise<string[]> {
    await unlink(this.path).catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
    this.disable();
    syncDir(this.walDir);
    return [];
  }

  private dropSync(): string[] {
    rmSync(this.path, { force: true });
    this.disable();
    syncDir(this.walDir);
    return [];
  }
}
