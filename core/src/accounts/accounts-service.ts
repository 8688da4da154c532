import { timingSafeEqual } from "node:crypto";
import { sha256Hex, toPrefixedId, toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { ChangeMark } from "../db/change-mark.js";
import type { Database } from "../db/database.js";
import type { UnreadableRows } from "../db/unreadable-rows.js";
import { LpError, notFound } from "../errors.js";
import { isAccountId, isPrefixedId } from "../ids.js";
import { createAccountRepository } from "./account-repository.js";
import {
  type AccountPrincipal,
  type AccountRecord,
  type AppPrincipal,
  type AppRecord,
  type Scope,
  type CreateAccountInput,
  type CreateAppInput,
  type CreateTokenInput,
  type TokenRecord,
} from "./schemas.js";

interface Deps {
  database: Database;
  clock: Clock;
  ids: IdSource;
  /** Names each damaged account or token row met once in the log. */
  unreadableRows?: UnreadableRows;
}

const unauthenticated = (message = "Missing or invalid credentials.") => new LpError("unauthenticated", message);
const TOKEN = /^lp_[A-Za-z0-9_-]{16,128}$/;

/**
 * Accounts, their access tokens, and partner applications (the admin functions and authentication), on
 * the account tables (`account-repository.ts`). Nothing is cached: a token is one primary-key read of its
 * hash (about 30 µs through the query layer, most of it Kysely's building and running of the query), and a
 * reset, an import or another process's write is seen by the next request, with nothing to keep in step.
 */
export function createAccountsService({ database, clock, ids, unreadableRows }: Deps) {
  const repository = createAccountRepository({ database, clock, unreadable: unreadableRows });
  const now = () => toTimestamp(clock.now());

  async function get(accountId: string): Promise<AccountRecord | null> {
    if (!isAccountId(accountId)) return null;
    return repository.getAccount(accountId);
  }

  return {
    get,

    /** The account or a 404. */
    async require(accountId: string): Promise<AccountRecord> {
      const account = await get(accountId);
      if (!account) throw notFound("account", accountId);
      return account;
    },

    /** Up to `limit` accounts in the order of their ids (the dashboard). */
    list: (limit: number) => repository.listAccounts(limit),

    /** Up to `limit` applications in the order of their ids, secret hashes included (the dashboard hides them). */
    listApps: (limit: number) => repository.listApplications(limit),

    /** Creates an account from a checked body (`createAccountSchema`'s output); a taken id is refused by its key. */
    async create(body: CreateAccountInput, change?: ChangeMark): Promise<AccountRecord> {
      const account_id = body.account_id ?? `acct_${ids.bytes(8).toString("hex")}`;
      // The schema checked it for the API; kept here because the id names the account everywhere.
      if (!isAccountId(account_id)) {
        throw new LpError("validation_error", "account_id: must be an account id", {
          issues: [{ path: "account_id", code: "invalid_string", message: "must be an account id" }],
        });
      }
      const { environment, currency, page_quota, product_quota, media_quota_bytes } = body;
      const record: AccountRecord = { account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at: now() };
      await database.transaction(async (tx) => {
        if ((await repository.createAccount(record, tx)).outcome === "exists") {
          throw new LpError("validation_error", `Account '${account_id}' already exists.`, {
            issues: [{ path: "account_id", code: "already_exists", message: "already exists" }],
          });
        }
        await change?.(tx);
      });
      return record;
    },

    /** Issues a token; the plain value is returned here only, the table keeps its SHA-256. */
    async createToken(body: CreateTokenInput, change?: ChangeMark) {
      const token = `lp_${ids.bytes(24).toString("base64url")}`;
      const issued = clock.now();
      const record: TokenRecord = {
        account_id: body.account_id,
        scopes: [...new Set(body.scopes)],
        expires_at: body.expires_in ? toTimestamp(new Date(issued.getTime() + body.expires_in * 1000)) : null,
        created_at: toTimestamp(issued),
      };
      await database.transaction(async (tx) => {
        // The account is the foreign key's to check: a missing one ends the transaction, rolled back here.
        const outcome = await repository.createToken(sha256Hex(token), record, tx);
        if (outcome.outcome === "missing_account") throw notFound("account", body.account_id);
        // 24 random bytes: a taken hash is as good as impossible, and would only refuse this request.
        if (outcome.outcome === "exists") throw new Error("A new token's hash is kept already");
        await change?.(tx);
      });
      return { token, account_id: record.account_id, scopes: record.scopes, expires_at: record.expires_at };
    },

    /** Resolves a bearer token to its account and scopes. */
    async authenticateToken(token: string): Promise<AccountPrincipal> {
      if (!TOKEN.test(token)) throw unauthenticated();
      const found = await repository.findToken(sha256Hex(token), now());
      if (!found) throw unauthenticated();
      if (found.expired) throw unauthenticated("The access token has expired.");
      return { kind: "account", account_id: found.account_id, scopes: found.scopes };
    },

    /** Registers a partner application; the client secret is returned here only. */
    async createApp(body: CreateAppInput, change?: ChangeMark) {
      const application_id = toPrefixedId(ids, "app");
      const client_secret = `lpsk_${ids.bytes(24).toString("base64url")}`;
      const record: AppRecord = {
        application_id,
        name: body.name,
        account_ids: [...new Set(body.account_ids)],
        secret_hash: sha256Hex(client_secret),
        created_at: now(),
      };
      await database.transaction(async (tx) => {
        // Named in the order given, as the 404 always has; the foreign keys then hold in this transaction.
        for (const id of record.account_ids) if (!(await repository.getAccount(id, tx))) throw notFound("account", id);
        if ((await repository.createApplication(record, tx)).outcome !== "created") throw new Error("A new application's id is taken already");
        await change?.(tx);
      });
      return { application_id, client_secret, name: record.name, account_ids: record.account_ids };
    },

    async getApp(applicationId: string): Promise<AppRecord | null> {
      if (!isPrefixedId(applicationId, "app")) return null;
      return repository.getApplication(applicationId);
    },

    /** Checks HTTP Basic credentials of an application in constant time. */
    async authenticateApp(applicationId: string, clientSecret: string): Promise<AppPrincipal> {
      const record = isPrefixedId(applicationId, "app") ? await repository.getApplication(applicationId) : null;
      const expected = Buffer.from(record?.secret_hash ?? sha256Hex("no application"), "hex");
      const given = Buffer.from(sha256Hex(clientSecret), "hex");
      if (!timingSafeEqual(expected, given) || !record) throw unauthenticated();
      return { kind: "app", application_id: record.application_id, account_ids: record.account_ids };
    },
  };
}

/** Throws `insufficient_scope` unless the principal holds `scope`, `account_mismatch` unless it owns the account. */
export function assertAccountAccess(principal: AccountPrincipal, accountId: string, scope: Scope): void {
  if (principal.account_id !== accountId) {
    throw new LpError("account_mismatch", "The access token belongs to another account than the path names.");
  }
  if (!principal.scopes.includes(scope)) {
    throw new LpError("insufficient_scope", `This operation needs the scope '${scope}'.`, { required_scope: scope });
  }
}

export type AccountsService = ReturnType<typeof createAccountsService>;
