import { CompiledQuery, type DatabaseConnection, type Dialect as KyselyDialect, type Driver, type OperationNode, type QueryResult, type TransactionSettings } from "kysely";

/**
 * What a statement is to a hook: a read, a write, or a transaction's `begin`, `commit` or `rollback` (Kysely's
 * own, through the driver). Raw SQL is a read when it starts with `select`, `pragma`, `values`, `explain` or
 * `show` (or is a `with` that writes nothing), a write otherwise.
 */
export type StatementKind = "read" | "write" | "begin" | "commit" | "rollback";

/** One statement on its way to the engine, as a {@link StatementHook} sees it. */
export interface Statement {
  readonly kind: StatementKind;
  /** The statement as compiled: its SQL text, parameters and operation node. */
  readonly query: CompiledQuery;
  /** Whether it runs inside a transaction (a `commit` or `rollback` does; a `begin` does not yet). */
  readonly inTransaction: boolean;
  /** Whether the transaction it is part of has changed rows so far (for a `commit`: whether it changed any at all). */
  readonly wrote: boolean;
  /**
   * Runs `sql` on the statement's own connection, past every hook, before or after the statement (a test's
   * fault wraps a statement made outside a transaction in one of its own, to undo it).
   */
  control(sql: string): Promise<void>;
}

/** Runs around one statement: calls `run` (the next hook, then the engine) or throws instead, and may change what is thrown. */
export type StatementHook = (statement: Statement, run: () => Promise<QueryResult<unknown>>) => Promise<QueryResult<unknown>>;

/** The hooks of each query layer built by {@link hookedDialect}, by the Kysely instance given to {@link registerHooks}. */
const registry = new WeakMap<object, StatementHook[]>();

/**
 * `dialect` with a place for hooks around every statement its connections run: queries outside a
 * transaction and inside one, and the transactions' `begin`, `commit` and `rollback`. With no hook a
 * statement goes straight to the engine.
 */
export function hookedDialect(dialect: KyselyDialect): { dialect: KyselyDialect; hooks: StatementHook[] } {
  const hooks: StatementHook[] = [];
  return {
    hooks,
    dialect: {
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createDriver: () => hookedDriver(dialect.createDriver(), hooks),
    },
  };
}

/** Ties `hooks` (of {@link hookedDialect}) to the query layer `db` built on it, for {@link hookStatements}. */
export function registerHooks(db: object, hooks: StatementHook[]): void {
  registry.set(db, hooks);
}

/**
 * Runs `hook` around every statement `database` sends from now on, outside the hooks added before it (the
 * last added sees a statement first, and what the others threw). Returns its removal.
 */
export function hookStatements(database: { db: object }, hook: StatementHook): () => void {
  const hooks = registry.get(database.db);
  if (!hooks) throw new Error("hookStatements needs a database of openDatabase");
  hooks.push(hook);
  return () => {
    const at = hooks.indexOf(hook);
    if (at >= 0) hooks.splice(at, 1);
  };
}

/** What a connection is doing, for the statements it runs. */
interface ConnectionState {
  inTransaction: boolean;
  wrote: boolean;
  /** The transaction step the driver is running on it, if any. */
  step: "begin" | "commit" | "rollback" | null;
}

/**
 * The driver's connections with `executeQuery` run through the hooks (patched once per connection, as
 * Kysely's own query log does), and its transaction steps named for them.
 */
function hookedDriver(driver: Driver, hooks: StatementHook[]): Driver {
  const states = new WeakMap<DatabaseConnection, ConnectionState>();
  const stateOf = (connection: DatabaseConnection): ConnectionState => {
    let state = states.get(connection);
    if (state) return state;
    state = { inTransaction: false, wrote: false, step: null };
    states.set(connection, state);
    const execute = connection.executeQuery.bind(connection);
    const own = state;
    connection.executeQuery = <R>(query: CompiledQuery, options?: Parameters<DatabaseConnection["executeQuery"]>[1]): Promise<QueryResult<R>> => {
      if (hooks.length === 0) return execute<R>(query, options);
      const kind = own.step ?? kindOf(query);
      const statement: Statement = {
        kind,
        query,
        inTransaction: own.inTransaction,
        wrote: own.wrote,
        control: async (sql) => void (await execute(CompiledQuery.raw(sql), options)),
      };
      const at = [...hooks];
      const call = (i: number): Promise<QueryResult<unknown>> => (i < 0 ? execute(query, options) : at[i]!(statement, () => call(i - 1)));
      const done = call(at.length - 1);
      if (kind !== "write" || !own.inTransaction) return done as Promise<QueryResult<R>>;
      return done.then((result) => {
        if (changedRows(query, result)) own.wrote = true;
        return result as QueryResult<R>;
      });
    };
    return state;
  };
  /** Runs one transaction step of the driver on `connection`, its statement named `step`. */
  const step = async (connection: DatabaseConnection, name: "begin" | "commit" | "rollback", run: () => Promise<void>) => {
    const state = stateOf(connection);
    state.step = name;
    if (name === "begin") state.wrote = false;
    try {
      await run();
    } finally {
      state.step = null;
      // A begin that failed opened nothing; a commit or rollback, failed or not, leaves no transaction to hook for.
      if (name !== "begin") state.inTransaction = false;
    }
    if (name === "begin") state.inTransaction = true;
  };
  return {
    init: (options) => driver.init(options),
    acquireConnection: async (options) => {
      const connection = await driver.acquireConnection(options);
      stateOf(connection);
      return connection;
    },
    beginTransaction: (connection, settings: TransactionSettings) => step(connection, "begin", () => driver.beginTransaction(connection, settings)),
    commitTransaction: (connection) => step(connection, "commit", () => driver.commitTransaction(connection)),
    rollbackTransaction: (connection) => step(connection, "rollback", () => driver.rollbackTransaction(connection)),
    releaseConnection: (connection, options) => driver.releaseConnection(connection, options),
    destroy: (options) => driver.destroy(options),
    ...(driver.savepoint && { savepoint: driver.savepoint.bind(driver) }),
    ...(driver.rollbackToSavepoint && { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) }),
    ...(driver.releaseSavepoint && { releaseSavepoint: driver.releaseSavepoint.bind(driver) }),
  };
}

const RAW_READ = /^\s*(?:select|pragma|values|explain|show)\b/i;
const RAW_WITH = /^\s*with\b/i;
const WRITE_WORD = /\b(?:insert|update|delete|replace)\b/i;

/** Whether a statement reads or writes, by its operation node (raw SQL by its first word). */
function kindOf(query: CompiledQuery): "read" | "write" {
  const kind = (query.query as OperationNode | undefined)?.kind;
  if (kind === "SelectQueryNode") return "read";
  if (kind !== undefined && kind !== "RawNode") return "write";
  if (RAW_READ.test(query.sql)) return "read";
  return RAW_WITH.test(query.sql) && !WRITE_WORD.test(query.sql) ? "read" : "write";
}

/**
 * Whether a write changed rows: rows it counts as affected, or rows it returned (an insert, update or delete
 * with `returning`). Raw SQL and schema changes count as changes. An upsert that found its row and left it
 * as it was changed nothing, and wrote nothing to the disk.
 */
export function changedRows(query: CompiledQuery, result: QueryResult<unknown>): boolean {
  if (result.numAffectedRows !== undefined) return result.numAffectedRows > 0n;
  const kind = (query.query as OperationNode | undefined)?.kind;
  if (kind === "InsertQueryNode" || kind === "UpdateQueryNode" || kind === "DeleteQueryNode") return result.rows.length > 0;
  return true;
}

/**
 * The table a write statement names first (`insert into t`, `update t`, `delete from t`), or null for raw
 * SQL and statements that name none: for a fault limited to some tables.
 */
export function writtenTable(statement: Statement): string | null {
  const node = statement.query.query as unknown as Record<string, unknown> | undefined;
  if (!node) return null;
  const target = node.kind === "InsertQueryNode" ? node.into : node.kind === "UpdateQueryNode" ? node.table : node.kind === "DeleteQueryNode" ? (node.from as { froms?: unknown[] } | undefined)?.froms?.[0] : undefined;
  return tableName(target);
}

function tableName(node: unknown): string | null {
  const n = node as { kind?: string; node?: unknown; table?: { identifier?: { name?: string } } } | undefined;
  if (n?.kind === "AliasNode") return tableName(n.node);
  if (n?.kind === "TableNode") return n.table?.identifier?.name ?? null;
  return null;
}
