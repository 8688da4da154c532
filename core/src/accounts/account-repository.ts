import { toTimestamp, type Clock } from "../deps.js";
import { toJson } from "../db/column-types.js";
import type { Database, Queries, Tx } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { preparedQuery } from "../db/prepared-query.js";
import { createRowReader, type ColumnRule, type UnreadableRows } from "../db/unreadable-rows.js";
import { environmentSchema, type AccountRecord, type AppRecord, type Scope, type TokenRecord } from "./schemas.js";

/** What the account repository is built on. */
export interface AccountRepositoryDeps {
  database: Database;
  /** Stamps the settings it creates (everything else carries its own times). */
  clock: Clock;
  /** Names each damaged row met once in the log. */
  unreadable?: UnreadableRows;
}

/**
 * What a create did: wrote the row, found its key taken (nothing written), or found an account it names
 * missing (nothing written; the first such account of the ones given).
 */
export type CreateOutcome = { outcome: "created" } | { outcome: "exists" } | { outcome: "missing_account"; account_id: string };

/** An account's three quotas, as a product or page create checks them. */
export type AccountQuotas = Pick<AccountRecord, "page_quota" | "product_quota" | "media_quota_bytes">;

/** A token as found by its hash, and whether it has expired at the time asked about. */
export type FoundToken = TokenRecord & { expired: boolean };

const CREATED = { outcome: "created" } as const;
const EXISTS = { outcome: "exists" } as const;
const ACCOUNT_COLUMNS = ["account_id", "environment", "currency", "page_quota", "product_quota", "media_quota_bytes", "created_at"] as const;

/** What an account's quotas must hold (SQLite keeps whatever a hand edit puts in a column). */
const QUOTA_RULES: Record<string, ColumnRule> = { page_quota: "integer", product_quota: "integer", media_quota_bytes: "integer" };
const ACCOUNT_RULES: Record<string, ColumnRule> = { ...QUOTA_RULES, environment: environmentSchema.options, currency: "text", created_at: "text" };
const TOKEN_RULES: Record<string, ColumnRule> = { account_id: "text", expires_at: "text?", created_at: "text" };
/** How a damaged token is named: the start of its hash (the hash is kept, never the token; the log needs no more). */
const tokenName = (tokenHash: string) => tokenHash.slice(0, 12);
/** A token's row by the SHA-256 of its text: every authenticated request reads it. */
const tokenByHash = preparedQuery((q: Queries, tokenHash: string) =>
  q.selectFrom("tokens").select(["account_id", "scopes", "expires_at", "created_at"]).where("token_hash", "=", tokenHash),
);

/**
 * The account plane on the relational schema (migration 0001): accounts and their quotas, access tokens by
 * the SHA-256 of their text, partner applications with the accounts they act for, and the service's own
 * settings. Keys are the tables' primary keys and the accounts a token or an application names are checked by
 * foreign keys, so a duplicate or a dangling id is refused by the engine, never by a read before the write.
 * Every create is `ON CONFLICT DO NOTHING`: the dev credentials, made by every process that starts, are
 * written once, and a caller's transaction is never aborted by a duplicate.
 */
export function createAccountRepository({ database, clock, unreadable }: AccountRepositoryDeps) {
  const accounts = createRowReader("account", "accounts", unreadable);
  const tokens = createRowReader("access token", "tokens", unreadable, "Create a new token meanwhile.");
  /** `row` as read, once its columns hold what an account's must (a damaged one is the account's refusal). */
  const checkedAccount = <R extends { account_id: string }>(row: R | undefined, rules: Record<string, ColumnRule>): R | null => {
    if (row) accounts.check(row.account_id, row, rules);
    return row ?? null;
  };
  async function findApplicationAccounts(q: Queries, applicationIds: readonly string[]): Promise<Map<string, string[]>> {
    const byApp = new Map<string, string[]>(applicationIds.map((id) => [id, []]));
    if (applicationIds.length === 0) return byApp;
    const rows = await q
      .selectFrom("application_accounts")
      .select(["application_id", "account_id"])
      .where("application_id", "in", applicationIds)
      .orderBy("application_id")
      .orderBy("position")
      .execute();
    for (const row of rows) byApp.get(row.application_id)!.push(row.account_id);
    return byApp;
  }

  /** The first of `accountIds` with no account (after a foreign key refused them). */
  async function firstMissingAccount(accountIds: readonly string[]): Promise<string | null> {
    const found = await database.db.selectFrom("accounts").select("account_id").where("account_id", "in", accountIds).execute();
    const present = new Set(found.map((row) => row.account_id));
    return accountIds.find((id) => !present.has(id)) ?? null;
  }

  return {
    /** Creates an account; `exists` when its id is taken (the primary key), and then nothing changes. */
    async createAccount(account: AccountRecord, q: Queries = database.db): Promise<CreateOutcome> {
      const inserted = await q
        .insertInto("accounts")
        .values({ ...account, updated_at: account.created_at })
        .onConflict((oc) => oc.column("account_id").doNothing())
        .returning("account_id")
        .executeTakeFirst();
      return inserted ? CREATED : EXISTS;
    },

    /** The account, or null. */
    async getAccount(accountId: string, q: Queries = database.db): Promise<AccountRecord | null> {
      return checkedAccount(await q.selectFrom("accounts").select(ACCOUNT_COLUMNS).where("account_id", "=", accountId).executeTakeFirst(), ACCOUNT_RULES);
    },

    /** Up to `limit` accounts in the order of their ids (the dashboard's list). */
    async listAccounts(limit: number, q: Queries = database.db): Promise<AccountRecord[]> {
      return q.selectFrom("accounts").select(ACCOUNT_COLUMNS).orderBy("account_id").limit(limit).execute();
    },

    /**
     * The account's quotas, or null. With `lock`, inside a transaction on PostgreSQL, the account's row is
     * held until it ends, so creates into one account check their quota one after another (SQLite runs its
     * transactions one at a time already).
     */
    async getQuotas(accountId: string, q: Queries = database.db, options: { lock?: boolean } = {}): Promise<AccountQuotas | null> {
      let query = q.selectFrom("accounts").select(["account_id", "page_quota", "product_quota", "media_quota_bytes"]).where("account_id", "=", accountId);
      if (options.lock && database.dialect === "postgres") query = query.forUpdate();
      const row = checkedAccount(await query.executeTakeFirst(), QUOTA_RULES);
      return row && { page_quota: row.page_quota, product_quota: row.product_quota, media_quota_bytes: row.media_quota_bytes };
    },

    /**
     * Keeps a token by the SHA-256 of its text: `exists` when that hash is kept already, `missing_account`
     * when its account does not exist (the foreign key), and then nothing is written. In a caller's
     * transaction `q`, a refused foreign key ends it on PostgreSQL: on `missing_account` the caller must
     * roll it back (throw).
     */
    async createToken(tokenHash: string, token: TokenRecord, q: Queries = database.db): Promise<CreateOutcome> {
      try {
        const inserted = await q
          .insertInto("tokens")
          .values({ token_hash: tokenHash, account_id: token.account_id, scopes: toJson(token.scopes), expires_at: token.expires_at, created_at: token.created_at })
          .onConflict((oc) => oc.column("token_hash").doNothing())
          .returning("token_hash")
          .executeTakeFirst();
        return inserted ? CREATED : EXISTS;
      } catch (error) {
        if (isForeignKeyViolation(error)) return { outcome: "missing_account", account_id: token.account_id };
        throw error;
      }
    },

    /**
     * The token kept under `tokenHash`, or null, and whether it has expired at `now` (an expired token is
     * still answered: the service tells "expired" from "unknown"). Times are ISO text, compared as such.
     */
    async findToken(tokenHash: string, now: string, q: Queries = database.db): Promise<FoundToken | null> {
      const [row] = await tokenByHash(q, tokenHash);
      if (!row) return null;
      const { scopes } = tokens.read(tokenName(tokenHash), row, TOKEN_RULES, { scopes: { what: "a list of scopes", items: "text" } });
      return { account_id: row.account_id, scopes: scopes as Scope[], expires_at: row.expires_at, created_at: row.created_at, expired: row.expires_at !== null && row.expires_at <= now };
    },

    /**
     * Registers an application and the accounts it acts for (duplicates dropped, the first place kept), in
     * one transaction: `exists` when its id is taken, `missing_account` (the first account that does not
     * exist, found after the foreign key refused the rows) when one of its accounts is absent, and then
     * nothing is written. Given a caller's transaction `tx`, the rows are written in it instead, and an
     * absent account is the foreign key's error, thrown: the caller checks its accounts in `tx` first.
     */
    async createApplication(app: AppRecord, tx?: Tx): Promise<CreateOutcome> {
      const accountIds = [...new Set(app.account_ids)];
      const write = async (tx: Tx): Promise<CreateOutcome> => {
        const inserted = await tx
          .insertInto("applications")
          .values({ application_id: app.application_id, name: app.name, secret_hash: app.secret_hash, created_at: app.created_at, updated_at: app.created_at })
          .onConflict((oc) => oc.column("application_id").doNothing())
          .returning("application_id")
          .executeTakeFirst();
        if (!inserted) return EXISTS;
        if (accountIds.length > 0) {
          await tx
            .insertInto("application_accounts")
            .values(accountIds.map((account_id, position) => ({ application_id: app.application_id, account_id, position })))
            .execute();
        }
        return CREATED;
      };
      if (tx) return write(tx);
      try {
        return await database.transaction(write);
      } catch (error) {
        if (!isForeignKeyViolation(error)) throw error;
        // Rolled back; the accounts are read again to name the missing one. Should it have been created
        // meanwhile, the foreign key's refusal still stands, and the first account given is named.
        return { outcome: "missing_account", account_id: (await firstMissingAccount(accountIds)) ?? accountIds[0]! };
      }
    },

    /** The application with its accounts in the order given, or null. */
    async getApplication(applicationId: string, q: Queries = database.db): Promise<AppRecord | null> {
      const row = await q.selectFrom("applications").select(["application_id", "name", "secret_hash", "created_at"]).where("application_id", "=", applicationId).executeTakeFirst();
      if (!row) return null;
      const accounts = await findApplicationAccounts(q, [row.application_id]);
      return { ...row, account_ids: accounts.get(row.application_id)! };
    },

    /** Up to `limit` applications in the order of their ids, each with its accounts (the dashboard's list). */
    async listApplications(limit: number, q: Queries = database.db): Promise<AppRecord[]> {
      const rows = await q.selectFrom("applications").select(["application_id", "name", "secret_hash", "created_at"]).orderBy("application_id").limit(limit).execute();
      const accounts = await findApplicationAccounts(q, rows.map((row) => row.application_id));
      return rows.map((row) => ({ ...row, account_ids: accounts.get(row.application_id)! }));
    },

    /**
     * The setting `name` (a cursor or builder-link key, the admin key, the dev credentials), made by
     * `create` when there is none. The write is `INSERT ... ON CONFLICT DO NOTHING RETURNING`, and when another
     * writer was first (nothing returned) a read, so processes starting together on one database all answer the
     * value the first writer stored.
     */
    async readOrCreateSetting(name: string, create: () => string, q: Queries = database.db): Promise<string> {
      const read = () => q.selectFrom("settings").select("value").where("name", "=", name).executeTakeFirst();
      const existing = await read();
      if (existing) return existing.value;
      const written = await q
        .insertInto("settings")
        .values({ name, value: create(), created_at: toTimestamp(clock.now()) })
        .onConflict((oc) => oc.column("name").doNothing())
        .returning("value")
        .executeTakeFirst();
      return written?.value ?? (await read())!.value;
    },
  };
}

/** The account repository's methods. */
export type AccountRepository = ReturnType<typeof createAccountRepository>;
