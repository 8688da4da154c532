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
  /** The resource's id, as the API names it. */
  readonly id: string;
  /** The row's key in its table as the log names it (the id, unless the table keys its rows otherwise). */
  readonly row: string;
  /** What is wrong with it (`checkout_fields is not valid JSON`). */
  readonly problem: string;

  /** `row`: the row's key as the log names it (default `id`); `advice`: what the caller can do meanwhile, after the message. */
  constructor(resource: string, table: string, id: string, problem: string, options: { row?: string; advice?: string } = {}) {
    const advice = options.advice ? ` ${options.advice}` : "";
    super("record_unreadable", `The stored ${resource} '${id}' cannot be read (${problem}); its row in the database needs repair.${advice}`, { resource, id });
    this.name = "UnreadableRowError";
    this.table = table;
    this.id = id;
    this.row = options.row ?? id;
    this.problem = problem;
  }
}

/** Whether `error` is a damaged row's refusal (named in the log already by the read that met it). */
export const isUnreadableRow = (error: unknown): error is UnreadableRowError => error instanceof UnreadableRowError;

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
      const key = `${error.table}/${error.row}`;
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
 * What a JSON document (a column's, or a field of one) must be, named `what` when it is not: an object whose
 * `fields` hold what their rules say (a {@link ColumnRule}, `?` also absent; or a shape of their own), a list
 * whose `items` each are what theirs says, and/or a value `is` accepts. JSON `null` (or an absent field) is a
 * value of it only when `nullable`; SQL NULL always reads as null (a NOT NULL column never holds it).
 */
export interface JsonShape {
  what: string;
  fields?: Record<string, ColumnRule | JsonShape>;
  items?: ColumnRule | JsonShape;
  is?: (value: unknown) => boolean;
  nullable?: boolean;
}

/** A JSON object (of any fields). */
export const JSON_OBJECT: JsonShape = { what: "an object", fields: {} };

/**
 * A JSON column's value, or the problem with it: `null` for SQL NULL, the parsed value when its text parses
 * and `shape` accepts it (the problem names what it must be, and the field that is not, when it does not).
 */
export function readJsonColumn<T>(column: string, text: unknown, shape: JsonShape): { value: T | null } | { problem: string } {
  if (text === null) return { value: null };
  if (typeof text !== "string") return { problem: `${column} is ${describe(text)}, not JSON text` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: `${column} is not valid JSON (cut short or edited)` };
  }
  const problem = jsonProblem(column, value, shape);
  return problem ? { problem } : { value: value as T | null };
}

/** What is wrong with the JSON value `value` (called `name`) by `shape`, or null when it is of it. */
function jsonProblem(name: string, value: unknown, shape: JsonShape): string | null {
  if (value === null || value === undefined) return shape.nullable ? null : `${name} is ${value === null ? "null" : "absent"}, not ${shape.what}`;
  if (shape.fields) {
    if (!isJsonObject(value)) return `${name} is not ${shape.what}`;
    for (const [key, rule] of Object.entries(shape.fields)) {
      const problem = partProblem(`${name}.${key}`, value[key], rule);
      if (problem) return problem;
    }
  }
  if (shape.items) {
    if (!Array.isArray(value)) return `${name} is not ${shape.what}`;
    for (let i = 0; i < value.length; i++) {
      const problem = partProblem(`${name}[${i}]`, value[i], shape.items);
      if (problem) return problem;
    }
  }
  if (shape.is && !shape.is(value)) return `${name} is not ${shape.what}`;
  return null;
}

const partProblem = (name: string, value: unknown, rule: ColumnRule | JsonShape) => (isShape(rule) ? jsonProblem(name, value, rule) : valueProblem(name, value, rule));
const isShape = (rule: ColumnRule | JsonShape): rule is JsonShape => typeof rule === "object" && !Array.isArray(rule);

/**
 * What a column (or a JSON object's field) must hold: text, a finite number, an integer, true or false, a
 * list, an object (`?`: also NULL, or absent from an object), or one of a set of values.
 */
export type ColumnRule =
  | "text"
  | "text?"
  | "number"
  | "number?"
  | "integer"
  | "integer?"
  | "boolean"
  | "boolean?"
  | "list"
  | "list?"
  | "object"
  | "object?"
  | readonly (string | number | null)[];

const FITS: Record<string, (value: unknown) => boolean> = {
  text: (value) => typeof value === "string",
  number: (value) => typeof value === "number" && Number.isFinite(value),
  integer: (value) => typeof value === "number" && Number.isInteger(value),
  boolean: (value) => typeof value === "boolean",
  list: Array.isArray,
  object: (value) => isJsonObject(value),
};
const NAMES: Record<string, string> = { text: "text", number: "a number", integer: "an integer", boolean: "true or false", list: "a list", object: "an object" };

function valueProblem(name: string, value: unknown, rule: ColumnRule): string | null {
  if (typeof rule !== "string") {
    return rule.includes(value as string | number | null) ? null : `${name} is ${describe(value)}, not one of ${rule.map((v) => (v === null ? "NULL" : String(v))).join(", ")}`;
  }
  if ((value === null || value === undefined) && rule.endsWith("?")) return null;
  const base = rule.replace("?", "");
  return FITS[base]!(value) ? null : `${name} is ${describe(value)}, not ${NAMES[base]}`;
}

/**
 * What is wrong with `row`'s columns by `rules`, or null when every column holds what it should: SQLite keeps
 * whatever a hand edit puts in a column, whatever its declared type.
 */
export function columnProblem(row: Record<string, unknown>, rules: Record<string, ColumnRule>): string | null {
  for (const [column, rule] of Object.entries(rules)) {
    const problem = valueProblem(column, row[column], rule);
    if (problem) return problem;
  }
  return null;
}

/**
 * Reads one resource's rows (`resource` as the API names it, in `table`): a damaged row is an
 * {@link UnreadableRowError} naming it (with `advice`, when given, in its message), logged once by
 * `unreadable`. The one way every repository checks its rows.
 */
export function createRowReader(resource: string, table: string, unreadable?: UnreadableRows, advice?: string) {
  /** The error of row `id` (its key in the table `row`, when that is not the id), named in the log once. */
  const fail = (id: string, problem: string, row?: string): UnreadableRowError => {
    const error = new UnreadableRowError(resource, table, id, problem, { row, advice });
    unreadable?.report(error);
    return error;
  };
  return {
    fail,
    /** Throws the error of row `id` (`key`: its key in the log, when it is not `id`) when one of its columns breaks `rules`. */
    check(id: string, row: Record<string, unknown>, rules: Record<string, ColumnRule>, key?: string): void {
      const problem = columnProblem(row, rules);
      if (problem) throw fail(id, problem, key);
    },
    /**
     * Checks row `id`'s columns by `rules` and parses its JSON columns by `documents` (a shape each); throws
     * the row's error at the first that is damaged (`key`: the row's key in the log, when it is not `id`).
     * The values are unknown to the type system: the shapes vouch for them.
     */
    read<K extends string>(id: string, row: Record<string, unknown>, rules: Record<string, ColumnRule>, documents: Record<K, JsonShape>, key?: string): Record<K, unknown> {
      const problem = columnProblem(row, rules);
      if (problem) throw fail(id, problem, key);
      const values = {} as Record<K, unknown>;
      for (const column of Object.keys(documents) as K[]) {
        const read = readJsonColumn(column, row[column], documents[column]);
        if ("problem" in read) throw fail(id, read.problem, key);
        values[column] = read.value;
      }
      return values;
    },
  };
}

/** A {@link createRowReader}. */
export type RowReader = ReturnType<typeof createRowReader>;

/**
 * `rows` as `read` makes them, each it refuses as damaged ({@link UnreadableRowError}, named in the log by
 * the read) left out: what a list, a fan-out or a claim does with a row it cannot take.
 */
export function readReadable<R, T>(rows: readonly R[], read: (row: R) => T): T[] {
  const out: T[] = [];
  for (const row of rows) {
    const value = readOrUnreadable(() => read(row));
    if (!isUnreadableRow(value)) out.push(value);
  }
  return out;
}

/** What `read` makes, or the {@link UnreadableRowError} it threw (any other error is thrown on). */
export function readOrUnreadable<T>(read: () => T): T | UnreadableRowError {
  try {
    return read();
  } catch (error) {
    if (isUnreadableRow(error)) return error;
    throw error;
  }
}

/** Whether `value` is a JSON object (not a list, not null). */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

function describe(value: unknown): string {
  if (value === null) return "NULL";
  if (value === undefined) return "absent";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  return typeof value === "number" || typeof value === "boolean" ? String(value) : typeof value;
}
