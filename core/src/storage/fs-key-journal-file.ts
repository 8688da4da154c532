import { closeSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { crc32 } from "node:zlib";
import { DIR_MODE, FILE_MODE } from "./fs-io.js";

/** The key journal's file in the log's folder (the log's replay reads only `<16 digits>.log` there). */
export const JOURNAL_FILE = "keys.journal";
/** A journal file larger than this is not read (nor written past it). */
export const MAX_BYTES = 8 << 20;
const MAX_HEADER = 1 << 20;
const GEN = /^[0-9a-f]{32}$/;

/** The journal's first line: its generation's id, and the snapshots (by prefix, their tokens) exact when it began. */
export interface JournalHeader {
  lp_keys: 1;
  gen: string;
  sealed: Record<string, string>;
}

/** One appended line: a CRC-32 (8 hex digits) of the tokens that follow it, separated by spaces. */
export function lineOf(tokens: readonly string[]): string {
  const body = tokens.join(" ");
  return `${crc32(body).toString(16).padStart(8, "0")} ${body}\n`;
}

/**
 * The journal at `path`: its header, its tokens, and its size once cut back after the last whole line (a
 * line a kill cut short belongs to a checkpoint that deleted nothing: the next start replays its segments).
 * Null when there is none, or it is too large, holds more than `maxKeys` tokens, or has no valid header.
 */
export function readJournal(path: string, maxKeys: number): { header: JournalHeader; tokens: Set<string>; size: number } | null {
  let bytes: Buffer;
  try {
    if (statSync(path).size > MAX_BYTES) return null;
    bytes = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const text = bytes.toString("utf8");
  const first = text.indexOf("\n");
  if (first < 0 || first > MAX_HEADER) return null;
  const header = parseHeader(text.slice(0, first));
  if (!header) return null;
  const tokens = new Set<string>();
  let at = first + 1;
  for (let end = text.indexOf("\n", at); end >= 0; end = text.indexOf("\n", at)) {
    const line = text.slice(at, end);
    const body = line.slice(9);
    if (line[8] !== " " || crc32(body).toString(16).padStart(8, "0") !== line.slice(0, 8)) break;
    for (const t of body.split(" ")) if (t) tokens.add(t);
    at = end + 1;
  }
  if (tokens.size > maxKeys) return null;
  const size = Buffer.byteLength(text.slice(0, at), "utf8");
  if (size < bytes.byteLength) {
    // Appends go on after whole lines only.
    const fd = openSync(path, "r+");
    try {
      ftruncateSync(fd, size);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  return { header, tokens, size };
}

/** Writes a journal holding only `header` (temporary file, flush, rename, flush of the folder); returns its size. */
export function writeJournalHeader(walDir: string, path: string, header: JournalHeader): number {
  const text = `${JSON.stringify(header)}\n`;
  mkdirSync(walDir, { recursive: true, mode: DIR_MODE });
  const tmp = `${path}.new`;
  const fd = openSync(tmp, "w", FILE_MODE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  syncDir(walDir);
  return Buffer.byteLength(text, "utf8");
}

/** Flushes a folder's entries (a file renamed in or removed). */
export function syncDir(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function parseHeader(line: string): JournalHeader | null {
  try {
    const h = JSON.parse(line) as JournalHeader;
    if (typeof h !== "object" || h === null || h.lp_keys !== 1 || typeof h.gen !== "string" || h.gen.length !== 32 || !GEN.test(h.gen)) return null;
    if (typeof h.sealed !== "object" || h.sealed === null || Array.isArray(h.sealed)) return null;
    if (Object.values(h.sealed).some((v) => typeof v !== "string")) return null;
    return h;
  } catch {
    return null;
  }
}
