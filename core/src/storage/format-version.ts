import type { Stores } from "./create-storage.js";
import { toStorageFault } from "./storage-faults.js";

/**
 * The format of the records this lp writes. It changes when a record's shape or the layout of the store
 * changes in a way an older lp would misread; each change adds a step to {@link MIGRATIONS}.
 */
export const CURRENT_FORMAT = 2;

/** What the marker holds: `format.json` of a data dir, `meta:format` under a Redis prefix. */
export interface FormatRecord {
  format: number;
  written_by: string;
}

/**
 * Steps from format N to N+1, each safe to run again after a kill part-way (the marker moves on only once a
 * step has finished). Format 1 is the first (stores written before the marker existed are in it). Format 2
 * changed the embedded store's layout, from a file per record to one SQLite database: a data dir is moved
 * to it before its store opens (`migration/format-1-migration.ts`), so only a Redis store (whose layout did
 * not change) or an empty data dir comes through this step.
 */
const MIGRATIONS: Record<number, { says: string; run: (stores: Stores) => Promise<void> }> = {
  1: { says: "the layout of this store is the same in format 2", run: async () => {} },
};

/** A store in a format newer than this lp reads: `lp serve` refuses to start with this message. */
export class NewerFormatError extends Error {
  constructor(where: string, found: FormatRecord, writtenBy: string) {
    super(`${where} is in format ${found.format} (written by ${found.written_by}); this lp (${writtenBy}) reads format ${CURRENT_FORMAT} and older. Upgrade lp to open it.`);
    this.name = "NewerFormatError";
  }
}

/** What {@link openFormat} found and did. */
export interface FormatOutcome {
  /** The format the store is in now. */
  format: number;
  /** `created`: a new store; `recorded`: records older than the marker; `migrated`; `current`; `unrecorded`: the marker could not be written (read as is). */
  action: "created" | "recorded" | "migrated" | "current" | "unrecorded";
}

/** Parses a marker's text; throws a message naming the file when it is not one. */
export function parseFormat(text: string, where: string): FormatRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${where} is not valid JSON; run \`lp doctor\` on this store.`);
  }
  const record = parsed as Partial<FormatRecord> | null;
  if (!record || typeof record !== "object" || !Number.isInteger(record.format) || (record.format as number) < 1) {
    throw new Error(`${where} does not name a format ({"format": N, "written_by": "lp X.Y.Z"}); run \`lp doctor\` on this store.`);
  }
  return { format: record.format as number, written_by: typeof record.written_by === "string" ? record.written_by : "an unknown lp" };
}

/**
 * Reads the store's format at start. A store with no marker gets one (format 1 also covers stores written
 * before markers existed: their layout is the same); an older format is migrated step by step, each step
 * logged; a newer one throws {@link NewerFormatError}. A marker that cannot be written for want of room or
 * rights is logged and the store is read as it is: starting must not need a write that can fail.
 */
export async function openFormat(stores: Stores, options: { writtenBy: string; log?: (line: string) => void }): Promise<FormatOutcome> {
  const marker = stores.format;
  if (!marker) return { format: CURRENT_FORMAT, action: "current" };
  const log = options.log ?? ((line: string) => console.error(line));
  const write = async (format: number): Promise<boolean> => {
    try {
      await marker.write(`${JSON.stringify({ format, written_by: options.writtenBy } satisfies FormatRecord)}\n`);
      return true;
    } catch (error) {
      const fault = toStorageFault(error);
      if (!fault) throw error;
      log(`storage: could not record the format in ${marker.where} (${fault.sysCode}); reading the store as format ${format}`);
      return false;
    }
  };
  const text = await marker.read();
  if (text === null) {
    const empty = (await stores.data.getKeys("")).length === 0;
    const written = await write(CURRENT_FORMAT);
    if (written && !empty) log(`storage: recorded format ${CURRENT_FORMAT} in ${marker.where} (records written before format markers, read as they are)`);
    return { format: CURRENT_FORMAT, action: written ? (empty ? "created" : "recorded") : "unrecorded" };
  }
  const found = parseFormat(text, marker.where);
  if (found.format > CURRENT_FORMAT) throw new NewerFormatError(stores.where ?? marker.where, found, options.writtenBy);
  if (found.format === CURRENT_FORMAT) return { format: CURRENT_FORMAT, action: "current" };
  for (let format = found.format; format < CURRENT_FORMAT; format++) {
    const step = MIGRATIONS[format];
    if (!step) throw new Error(`No migration from format ${format}; this lp cannot open ${marker.where}.`);
    log(`storage: migrating ${stores.where ?? marker.where} from format ${format} to ${format + 1}: ${step.says}`);
    await step.run(stores);
    if (!(await write(format + 1))) return { format, action: "unrecorded" };
  }
  return { format: CURRENT_FORMAT, action: "migrated" };
}
