import { timingSafeEqual } from "node:crypto";
import type { Storage } from "unstorage";
import { sha256Hex, toPrefixedId, toTimestamp, type Clock, type IdSource } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import { isAccountId, isPrefixedId } from "../ids.js";
import type { RecordChange } from "../storage/create-storage.js";
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
  withQuotaDefaults,
} from "./schemas.js";

interface Deps {
  storage: Storage;
  clock: Clock;
  ids: IdSource;
}

const unauthenticated = (message = "Missing or invalid credentials.") => new LpError("unauthenticated", message);

/** Accounts, their access tokens, and partner applications (the admin functions and authentication). */
export function createAccountsService({ storage, clock, ids }: Deps) {
  const now = () => toTimestamp(clock.now());
  // Tokens never change once issued (only a reset or an import removes them), so their records are cached
  // and a request does not read storage to authenticate. The cache is keyed by the token itself, so a
  // known token costs one map lookup and no SHA-256 (which only derives the storage key); an unknown one
  // is hashed and read from storage, and never cached.
  const tokenCache = new Map<string, { principal: AccountPrincipal; expiresAt: number }>();

  async function get(accountId: string): Promise<AccountRecord | null> {
    if (!isAccountId(accountId)) return null;
    const record = await storage.getItem<AccountRecord>(`accounts:${accountId}`);
    return record ? withQuotaDefaults(record) : null;
  }

  return {
    get,

    /** Forgets cached tokens (after a reset or an import replaced the records). */
    forgetCache() {
      tokenCache.clear();
    },

    /**
     * Keeps the token cache true to a store other processes write (the change feed): a removed token, or a
     * gap in the feed (null), empties it. Issued tokens never change, so nothing else can make it stale.
     */
    onRecordChange(change: RecordChange | null) {
      if (!change || (change.value === null && change.key.startsWith("tokens:"))) tokenCache.clear();
    },

    /** The account or a 404. */
    async require(accountId: string): Promise<AccountRecord> {
      const account = await get(accountId);
      if (!account) throw notFound("account", accountId);
      return account;
    },

    /** Creates an account from a checked body (`createAccountSchema`'s output). */
    async create(body: CreateAccountInput): Promise<AccountRecord> {
      const account_id = body.account_id ?? `acct_${ids.bytes(8).toString("hex")}`;
      // The schema checked it for the API; kept here because the id becomes a storage key.
      if (!isAccountId(account_id)) {
        throw new LpError("validation_error", "account_id: must be an account id", {
          issues: [{ path: "account_id", code: "invalid_string", message: "must be an account id" }],
        });
      }
      if (await get(account_id)) {
        throw new LpError("validation_error", `Account '${account_id}' already exists.`, {
          issues: [{ path: "account_id", code: "already_exists", message: "already exists" }],
        });
      }
      const { environment, currency, page_quota, product_quota, media_quota_bytes } = body;
      const record: AccountRecord = { account_id, environment, currency, page_quota, product_quota, media_quota_bytes, created_at: now() };
      await storage.setItem(`accounts:${account_id}`, record);
      return record;
    },

    /** Issues a token; the plain value is returned here only. */
    async createToken(body: CreateTokenInput) {
      if (!(await get(body.account_id))) throw notFound("account", body.account_id);
      const token = `lp_${ids.bytes(24).toString("base64url")}`;
      const issued = clock.now();
      const record: TokenRecord = {
        account_id: body.account_id,
        scopes: [...new Set(body.scopes)],
        expires_at: body.expires_in ? toTimestamp(new Date(issued.getTime() + body.expires_in * 1000)) : null,
        created_at: toTimestamp(issued),
      };
      await storage.setItem(`tokens:${sha256Hex(token)}`, record);
      return { token, account_id: record.account_id, scopes: record.scopes, expires_at: record.expires_at };
    },

    /** Resolves a bearer token to its account and scopes. */
    async authenticateToken(token: string): Promise<AccountPrincipal> {
      let cached = tokenCache.get(token);
      if (!cached) {
        if (!/^lp_[A-Za-z0-9_-]{16,128}$/.test(token)) throw unauthenticated();
        const record = await storage.getItem<TokenRecord>(`tokens:${sha256Hex(token)}`);
        if (!record) throw unauthenticated();
        const expiresAt = record.expires_at ? Date.parse(record.expires_at) : Infinity;
        cached = { principal: { kind: "account", account_id: record.account_id, scopes: record.scopes }, expiresAt };
        if (tokenCache.size >= 10_000) tokenCache.clear();
        tokenCache.set(token, cached);
      }
      if (cached.expiresAt <= clock.now().getTime()) throw unauthenticated("The access token has expired.");
      return { ...cached.principal };
    },

    /** Registers a partner application; the client secret is returned here only. */
    async createApp(body: CreateAppInput) {
      for (const id of body.account_ids) if (!(await get(id))) throw notFound("account", id);
      const application_id = toPrefixedId(ids, "app");
      const client_secret = `lpsk_${ids.bytes(24).toString("base64url")}`;
      const record: AppRecord = {
        application_id,
        name: body.name,
        account_ids: [...new Set(body.account_ids)],
        secret_hash: sha256Hex(client_secret),
        created_at: now(),
      };
      await storage.setItem(`apps:${application_id}`, record);
      return { application_id, client_secret, name: record.name, account_ids: record.account_ids };
    },

    async getApp(applicationId: string): Promise<AppRecord | null> {
      if (!isPrefixedId(applicationId, "app")) return null;
      return storage.getItem<AppRecord>(`apps:${applicationId}`);
    },

    /** Checks HTTP Basic credentials of an application in constant time. */
    async authenticateApp(applicationId: string, clientSecret: string): Promise<AppPrincipal> {
      const record = isPrefixedId(applicationId, "app") ? await storage.getItem<AppRecord>(`apps:${applicationId}`) : null;
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
