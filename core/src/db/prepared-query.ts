import type { CompiledQuery, QueryExecutorProvider, QueryResult } from "kysely";
import type { Queries } from "./database.js";
import type { Tables } from "./tables.js";

/** A query builder (`compile()`), or an `sql` template (`compile(executorProvider)`). */
interface Buildable<R> {
  compile(executorProvider: QueryExecutorProvider): CompiledQuery<R>;
}

/** Where each parameter of a compiled query comes from: the index of an argument, or a value of the query's own. */
type Slot = number | { value: unknown };
interface Compiled<R> {
  query: CompiledQuery<R>;
  slots: Slot[];
}

/**
 * A query of one fixed shape, built and compiled once per dialect, then run with new argument values. Kysely
 * builds and compiles a query anew at every run, which costs more than node:sqlite takes to run a primary-key
 * read (about 25 µs of CPU for a product's read with its images, on this machine); the few statements that run
 * on every request or delivery are written with this instead.
 *
 * `build` is called once per dialect with a marker for each argument: every argument must reach the query as a
 * value (a `where`'s operand, a value to insert), never as a name, a list's length or a branch, since the SQL
 * is not built again. That is checked when it is compiled: a marker that is not a parameter as given is an error.
 * Returns the rows ({@link preparedStatement}: the whole result, for the rows an update changed).
 */
export function preparedQuery<A extends unknown[], R>(build: (q: Queries, ...args: A) => Buildable<R>): (q: Queries, ...args: A) => Promise<R[]> {
  const run = preparedStatement(build);
  return async (q, ...args) => (await run(q, ...args)).rows;
}

/** {@link preparedQuery}, answering the engine's whole result (`numAffectedRows` of an update or a delete). */
export function preparedStatement<A extends unknown[], R>(build: (q: Queries, ...args: A) => Buildable<R>): (q: Queries, ...args: A) => Promise<QueryResult<R>> {
  // By the dialect's adapter class: the SQL differs by dialect only (no database of lp has a plugin that rewrites
  // its queries, and the PostgreSQL schema is the connection's search_path), so the query is compiled once per
  // process for all the databases of one dialect (startLp() opens one per test).
  const compiled = new WeakMap<object, Compiled<R>>();
  return async (q, ...args) => {
    const dialect = q.getExecutor().adapter.constructor;
    let entry = compiled.get(dialect);
    if (!entry) {
      entry = compile(q, build, args.length);
      compiled.set(dialect, entry);
    }
    const parameters = entry.slots.map((slot) => (typeof slot === "number" ? args[slot] : slot.value));
    return q.executeQuery<R>({ ...entry.query, parameters });
  };
}

const marker = (index: number) => `\u0000lp-argument-${index}\u0000`;

function compile<A extends unknown[], R>(q: Queries, build: (q: Queries, ...args: A) => Buildable<R>, arity: number): Compiled<R> {
  const markers = Array.from({ length: arity }, (_, index) => marker(index));
  const query = build(q, ...(markers as A)).compile(q);
  const slots = query.parameters.map((value): Slot => {
    const index = markers.indexOf(value as string);
    return index >= 0 ? index : { value };
  });
  markers.forEach((text, index) => {
    if (query.sql.includes(text) || !slots.includes(index)) throw new Error(`preparedQuery: argument ${index} does not reach the query as a parameter (${query.sql})`);
  });
  return { query, slots };
}

/**
 * An insert of one row into `table`, every one of `columns` given, compiled once per dialect as
 * {@link preparedQuery} is (for the rows a request writes every time: a product, an event).
 */
export function preparedInsert<T extends keyof Tables, C extends keyof Tables[T] & string>(table: T, columns: readonly C[]): (q: Queries, row: { [K in C]: unknown }) => Promise<void> {
  const insert = preparedQuery((q: Queries, ...values: unknown[]) =>
    q.insertInto(table).values(Object.fromEntries(columns.map((column, i) => [column, values[i]])) as never),
  );
  return async (q, row) => {
    await insert(q, ...columns.map((column) => row[column]));
  };
}
