import { sha256Hex, toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { Database } from "../db/database.js";
import { createAccountRepository } from "./account-repository.js";
import { DEFAULT_MEDIA_QUOTA_BYTES, DEFAULT_PRODUCT_QUOTA, SCOPES, type AccountRecord, type AppRecord, type TokenRecord } from "./schemas.js";

/** The credentials `lp serve` makes on first start and prints on every start. */
export interface DevCredentials {
  account_id: string;
  token: string;
  application_id: string;
  client_secret: string;
}

/** The settings (rows of `settings`) the plain values are kept under. */
const DEV_CREDENTIALS = "dev_credentials";
/** The setting the admin key is kept under (generated, or on PostgreSQL the one every process shares). */
export const ADMIN_KEY = "admin_key";

/**
 * Makes sure the dev account, its all-scope token and the dev application exist. The plain values are
 * kept as a setting (this is a local tool: printing them on every start is the point), so a reset or an
 * import that drops the accounts puts back the same credentials. The setting is written once, whoever
 * writes first, and every row only if absent (`ON CONFLICT DO NOTHING`), so processes starting together
 * on one database all end up with (and print) the same values.
 */
export async function ensureDevCredentials(database: Database, clock: Clock, ids: IdSource): Promise<DevCredentials> {
  const repository = createAccountRepository({ database, clock });
  const made = (): DevCredentials => ({
    account_id: "acct_dev",
    token: `lp_${ids.bytes(24).toString("base64url")}`,
    application_id: `app_${ids.bytes(12).toString("hex")}`,
    client_secret: `lpsk_${ids.bytes(24).toString("base64url")}`,
  });
  const creds = JSON.parse(await repository.readOrCreateSetting(DEV_CREDENTIALS, () => JSON.stringify(made()))) as DevCredentials;
  const at = toTimestamp(clock.now());
  const account: AccountRecord = { account_id: creds.account_id, environment: "production", currency: "USD", page_quota: 100, product_quota: DEFAULT_PRODUCT_QUOTA, media_quota_bytes: DEFAULT_MEDIA_QUOTA_BYTES, created_at: at };
  const token: TokenRecord = { account_id: creds.account_id, scopes: [...SCOPES], expires_at: null, created_at: at };
  const app: AppRecord = { application_id: creds.application_id, name: "lp dev application", account_ids: [creds.account_id], secret_hash: sha256Hex(creds.client_secret), created_at: at };
  // One transaction: a start (or a reset) never leaves the account without its token or application.
  await database.transaction(async (tx) => {
    await repository.createAccount(account, tx);
    await repository.createToken(sha256Hex(creds.token), token, tx);
    await repository.createApplication(app, tx);
  });
  return creds;
}

/**
 * The admin key of `/_admin`: `explicit` (LP_ADMIN_KEY) when given, else the key generated on the first
 * start and kept as a setting beside the dev credentials (`clock` stamps its row), so a saved `.lp.env` or an
 * exported key survives a restart as every other credential does. Generated keys are 38 characters, over the
 * 32 a network bind needs.
 */
export async function ensureAdminKey(database: Database, clock: Clock, ids: IdSource, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  return createAccountRepository({ database, clock }).readOrCreateSetting(ADMIN_KEY, () => `lpadm_${ids.bytes(24).toString("base64url")}`);
}
