import { destr } from "destr";
import { storedRecordProblem } from "../storage/record-check.js";
import { CURRENT_FORMAT, parseFormat } from "../storage/format-version.js";

/** One problem `lp doctor` found. */
export interface DoctorProblem {
  check: "record" | "index" | "database" | "media" | "orphan" | "mode" | "format";
  /** The record's key, the media path, or the file. */
  key: string;
  /** Its file, or its Redis key. */
  where: string;
  message: string;
  /** Whether `--fix` repairs it (missing media, a newer or unreadable format marker need a person). */
  fixable: boolean;
}

/** One record as a source holds it. */
export interface SourceRecord {
  key: string;
  text: string;
  where: string;
}

/**
 * A store as `lp doctor` reads it: below the storage drivers, so that it sees what is really there (a
 * torn file, a key set out of step) and never changes a thing unless asked to fix.
 */
export interface DoctorSource {
  /** The data dir, or the Redis URL and prefix. */
  where: string;
  records(): Promise<SourceRecord[]>;
  hasMedia(path: string): Promise<boolean>;
  /** Every stored media path, for the orphan check (stores that can list them cheaply: SQLite). */
  mediaPaths?(): Promise<string[]>;
  /** With `mediaPaths`: leaves an orphan out of what `--fix` keeps (never deleting it); returns where it stays. */
  setAsideMedia?(path: string): Promise<string>;
  /** The format marker's text (null: none), its key in the store, and where it is. */
  format(): Promise<{ text: string | null; key: string; where: string }>;
  writeFormat(text: string): Promise<void>;
  /**
   * Problems of what the store keeps beside the records, against `keys`, the readable records: Redis's key
   * sets, SQLite's own integrity check of its pages and indexes.
   */
  indexProblems(keys: Set<string>): Promise<DoctorProblem[]>;
  /** Makes what the store keeps match `keys` (SQLite: a fresh database of the readable rows); says what it did. */
  rebuildIndexes(keys: Set<string>): Promise<string[]>;
  /** Files and folders readable by others than their owner (a data dir). */
  modeProblems(): Promise<DoctorProblem[]>;
  fixModes(problems: DoctorProblem[]): Promise<string[]>;
  /** Moves a record out of the way (never deletes it); returns where it went. */
  quarantine(record: SourceRecord): Promise<string>;
}

/** What {@link runDoctor} found and, with `fix`, did. */
export interface DoctorReport {
  where: string;
  /** The format the marker names (null: no readable marker). */
  format: number | null;
  records: number;
  problems: DoctorProblem[];
  /** What `--fix` did, one line each. */
  fixed: string[];
}

/** Every `media_path` a record names (product images; any record that keeps uploads the same way). */
function mediaPaths(value: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 8 || value === null || typeof value !== "object") return out;
  for (const [name, inner] of Object.entries(value as Record<string, unknown>)) {
    if (name === "media_path" && typeof inner === "string") out.push(inner);
    else mediaPaths(inner, out, depth + 1);
  }
  return out;
}

/**
 * Media no record accounts for: a product image that no product record names (its upload outlived a
 * failed create), or a page's image whose page is gone. Other media (drawn on request) is left alone.
 */
function orphans(stored: string[], named: Set<string>, pages: Set<string>): string[] {
  return stored.filter((path) => {
    const [area, owner] = path.split("/");
    return area === "products" ? !named.has(path) : area === "pages" && !pages.has(owner!);
  });
}

/**
 * Checks a store: the format marker, every record against its kind's schema, what the store keeps beside
 * the records (Redis's key sets, SQLite's integrity check), the media records point at, media no record
 * accounts for, and the modes of a data dir's files. With `fix` it sets aside unreadable records and
 * orphans (never deleting them), rebuilds what is kept beside the records, writes a missing marker and
 * tightens modes. Problems it cannot fix (a newer format, missing media) stay in the report.
 */
export async function runDoctor(source: DoctorSource, options: { fix: boolean; writtenBy: string }): Promise<DoctorReport> {
  const problems: DoctorProblem[] = [];
  const fixed: string[] = [];

  const marker = await source.format();
  if (marker.text === null) {
    problems.push({ check: "format", key: marker.key, where: marker.where, fixable: true, message: `no format marker (lp writes it at start; this store is read as format ${CURRENT_FORMAT})` });
    if (options.fix) {
      await source.writeFormat(`${JSON.stringify({ format: CURRENT_FORMAT, written_by: options.writtenBy })}\n`);
      fixed.push(`wrote ${marker.where}: format ${CURRENT_FORMAT}`);
    }
  } else {
    try {
      const found = parseFormat(marker.text, marker.where);
      if (found.format > CURRENT_FORMAT) {
        // Records of a newer format may not match this lp's schemas: checking them would report sound ones as damaged.
        const message = `format ${found.format}, written by ${found.written_by}, is newer than this lp reads (${CURRENT_FORMAT}): upgrade lp to check this store (nothing else was checked)`;
        problems.push({ check: "format", key: marker.key, where: marker.where, fixable: false, message });
        return { where: source.where, format: found.format, records: 0, problems, fixed };
      }
    } catch {
      // A marker that says no format is not rewritten: guessing one could make lp misread every record.
      const message = `not a format marker ({"format": N, "written_by": "lp X.Y.Z"}); --fix does not guess a format: put back the marker of the lp that wrote this store (this lp writes format ${CURRENT_FORMAT})`;
      problems.push({ check: "format", key: marker.key, where: marker.where, fixable: false, message });
    }
  }

  const records = await source.records();
  const readable = new Set<string>();
  const media: Array<{ key: string; where: string; path: string }> = [];
  for (const record of records) {
    const value = destr(record.text);
    const problem = storedRecordProblem(record.key, record.text.trim() === "" ? "" : value);
    if (problem) {
      problems.push({ check: "record", key: record.key, where: record.where, fixable: true, message: problem });
      if (options.fix) fixed.push(`quarantined ${record.key}: ${record.where} -> ${await source.quarantine(record)}`);
      continue;
    }
    readable.add(record.key);
    for (const path of mediaPaths(value)) media.push({ key: record.key, where: record.where, path });
  }

  if (source.mediaPaths) {
    // Page ids from the keys `acct:<a>:pages:<id>`.
    const pages = new Set([...readable].filter((key) => /^acct:[^:]+:pages:[^:]+$/.test(key)).map((key) => key.slice(key.lastIndexOf(":") + 1)));
    for (const path of orphans(await source.mediaPaths(), new Set(media.map((item) => item.path)), pages)) {
      problems.push({ check: "orphan", key: path, where: path, fixable: true, message: "media that no record names (left by an upload whose record was never written)" });
      if (options.fix && source.setAsideMedia) fixed.push(`set aside ${path}: ${await source.setAsideMedia(path)}`);
    }
  }

  const indexProblems = await source.indexProblems(readable);
  problems.push(...indexProblems);
  // Quarantined records leave the indexes too: rebuild whenever --fix moved something or found them out of step.
  if (options.fix && (indexProblems.length > 0 || fixed.some((line) => line.startsWith("quarantined") || line.startsWith("set aside")))) fixed.push(...(await source.rebuildIndexes(readable)));

  for (const item of media) {
    if (!(await source.hasMedia(item.path))) {
      problems.push({ check: "media", key: item.key, where: item.where, fixable: false, message: `names media ${item.path}, which is missing (not fixable: the image has to be uploaded again)` });
    }
  }

  const modes = await source.modeProblems();
  problems.push(...modes);
  if (options.fix && modes.length > 0) fixed.push(...(await source.fixModes(modes)));

  return { where: source.where, format: formatOf(marker.text, marker.where), records: records.length, problems, fixed };
}

/** The format a marker's text names, or null. */
function formatOf(text: string | null, where: string): number | null {
  try {
    return text === null ? null : parseFormat(text, where).format;
  } catch {
    return null;
  }
}

/** Problems `--fix` leaves: missing media and a newer or unreadable format marker need a person. */
export function unfixed(report: DoctorReport): DoctorProblem[] {
  return report.problems.filter((p) => !p.fixable);
}
