import { LpError } from "../errors.js";

/**
 * A row that cannot be read as the resource it holds: a JSON column that does not parse or is not of its
 * shape, a value of the wrong type or outside its set (a hand edit with `sqlite3`, a disk error, another
 * version's row). A read of the resource answers 500 `record_unreadable` naming it; lists leave the row out;
 * the rest of the account works.
 */
export class UnreadableRowError extends LpError {
  /** The table the row is in. */
  readonly table: string;
  /** The row's id. */
  readonly id: string;
  /** What is wrong with it (`checkout_fields is not valid JSON`). */
  readonly problem: string;

  constructor(resource: string, table: string, id: string, problem: string) {
    super("record_unreadable", `The stored ${resource} '${id}' cannot be read (${problem}); its row in the database needs repair.`, { resource, id });
    this.name = "UnreadableRowError";
    this.table = table;
    this.id = id;
    this.problem = problem;
  }
}

/** Rows of unreadable resources already named in the log: each once per process, however often it is read or listed. */
const REPORTED_MAX = 10_000;

/** Options of {@link createUnreadableRows}. */
export interface UnreadableRowsOptions {
  /** Where the database is (the SQLite file, the PostgreSQL server), named in every line. */
  where: string;
  /** Default stderr. */
  log?: (line: string) => void;
}

/**
 * Names each unreadable row in one log line, the first time it is met (`storage: unreadable row
 * products/<id> in /data/lp.db: checkout_fields is not valid JSON; ...`), never with a stack.
 */
export function createUnreadableRows(options: UnreadableRowsOptions) {
  const log = options.log ?? ((line: string) => console.error(line));
  const reported = new Set<string>();
  return {
    /** Logs `error`'s row once, and returns `error` (to throw it, or to leave the row out of a list). */
    report(error: UnreadableRowError): UnreadableRowError {
      const key = `${error.table}/${error.id}`;
      if (!reported.has(key) && reported.size < REPORTED_MAX) {
        reported.add(key);
        log(`storage: unreadable row ${key} in ${options.where}: ${error.problem}; its reads answer 500 record_unreadable and lists leave it out until the row is repaired`);
      }
      return error;
    },
  };
}

/** A {@link createUnreadableRows}. */
export type UnreadableRows = ReturnType<typeof createUnreadableRows>;

/**
 * A JSON column's value, or the problem with it: `null` for SQL NULL, the parsed value when its text parses
 * and `shape` accepts it (`shape` names what it must be when it does not).
 */
export function readJsonColumn<T>(column: string, text: string | null, shape: { is: (value: unknown) => boolean; what: string }): { value: T | null } | { problem: string } {
  if (text === null) return { value: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${column} is not valid JSON (cut short or edited)` };
  }
  if (value !== null && !shape.is(value)) return { problem: `${column} is not ${shape.what}` };
  return { value: value as T | null };
}

/** What a column must hold, for {@link columnProblem}. */
export type ColumnRule = "text" | "text?" | "number" | "number?" | "integer" | "integer?" | readonly string[];

/**
 * What is wrong with `row`'s columns by `rules` (text, a finite number, an integer, `?` also NULL, or one of
 * a list of texts), or null when every column holds what it should: SQLite keeps whatever a hand edit puts in
 * a column, whatever its declared type.
 */
export function columnProblem(row: Record<string, unknown>, rules: Record<string, ColumnRule>): string | null {
  for (const [column, rule] of Object.entries(rules)) {
    const value = row[column];
    if (typeof rule !== "string") {
      if (typeof value !== "string" || !rule.includes(value)) return `${column} is ${describe(value)}, not one of ${rule.join(", ")}`;
      continue;
    }
    if (value === null && rule.endsWith("?")) continue;
    const base = rule.replace("?", "");
    const fits = base === "text" ? typeof value === "string" : typeof value === "number" && Number.isFinite(value) && (base === "number" || Number.isInteger(value));
    if (!fits) return `${column} is ${describe(value)}, not ${base === "text" ? "text" : base === "number" ? "a number" : "an integer"}`;
  }
  return null;
}

function describe(value: unknown): string {
  if (value === null) return "NULL";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (value instanceof Uint8Array) return "bytes";
  return typeof value === "number" ? String(value) : typeof value;
}
