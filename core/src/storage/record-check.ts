import { LpError } from "../errors.js";
import { storeOfKey } from "./record-schemas.js";

/** The kind of record a key holds (`product`, `page`...), or `record` for the others. */
export function kindOfKey(key: string): string {
  return storeOfKey(key)?.kind ?? "record";
}

/**
 * Why the record read at `key` is unusable, or null when it passes: every record is a JSON object (a torn or
 * empty file is not), and the kinds readers rely on carry their fields with their types (the `read` schemas of
 * record-schemas.ts).
 */
export function recordProblem(key: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "object" || Array.isArray(value)) {
    return typeof value === "string" ? (value.trim() === "" ? "empty" : "not valid JSON (cut short or edited)") : `a ${Array.isArray(value) ? "list" : typeof value}, not a record`;
  }
  // Stores the read path does not check field by field need only be JSON objects, which they are here.
  const schema = storeOfKey(key)?.read;
  if (!schema) return null;
  const result = schema.safeParse(value);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return `not a valid ${kindOfKey(key)}: ${issue.path.join(".") || "(root)"} ${issue.message}`;
}

/**
 * {@link recordProblem} of a value parsed from a record's stored text. The text was there, so a JSON `null` is
 * a damaged record, not an absent one (a read through the store cannot tell the two apart: both are null).
 */
export function storedRecordProblem(key: string, value: unknown): string | null {
  return value === null || value === undefined ? "JSON null, not a record" : recordProblem(key, value);
}

/**
 * A record that cannot be read as what it should be (torn, empty, another shape). A GET of it answers 500
 * `record_unreadable` naming the id; lists skip it; `lp doctor` finds it and `--fix` quarantines it.
 */
export class RecordUnreadableError extends LpError {
  readonly key: string;

  constructor(key: string, problem: string) {
    const id = key.slice(key.lastIndexOf(":") + 1);
    const kind = kindOfKey(key);
    super("record_unreadable", `The stored ${kind} '${id}' cannot be read (${problem}). Run \`lp doctor\` on the data store.`, { resource: kind, id });
    this.name = "RecordUnreadableError";
    this.key = key;
  }
}

/** `promise`'s value, or null when the record it reads is unreadable: for lists, which skip such records. */
export async function skipUnreadable<T>(promise: Promise<T | null>): Promise<T | null> {
  try {
    return await promise;
  } catch (error) {
    if (error instanceof RecordUnreadableError) return null;
    throw error;
  }
}
