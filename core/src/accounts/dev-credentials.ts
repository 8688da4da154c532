import type { Storage } from "unstorage";
import { sha256Hex, toTimestamp, type Clock, type IdSource } from "../deps.js";
import { claimItem, setIfAbsent } from "../storage/claim-item.js";
import { DEFAULT_MEDIA_QUOTA_BYTES, DEFAULT_PRODUCT_QUOTA, SCOPES, type AccountRecord, type AppRecord, type TokenRecord } from "./schemas.js";

/** The credentials `lp serve` makes on first start and prints on every start. */
export interface DevCredentials {
  account_id: string;
  token: string;
  application_id: string;
  client_secret: string;
}

const META_KEY = "meta:dev_credentials";

/**
 * Makes sure the dev account, its all-scope token and the dev application exist. The plain values are
 * kept under a meta key (this is a local tool: printing them on every start is the point), so a reset
 * or an import that drops the records puts back the same credentials. Every write only fills what is absent,
 * so processes of a cluster starting together on one Redis all end up with (and print) the same values.
 */
export async function ensureDevCredentials(storage: Storage, clock: Clock, ids: IdSource): Promise<DevCredentials> {
  const creds = await claimItem<DevCredentials>(storage, META_KEY, () => ({
    account_id: "acct_dev",
    token: `lp_${ids.bytes(24).toString("base64url")}`,
    application_id: `app_${ids.bytes(12).toString("hex")}`,
    client_secret: `lpsk_${ids.bytes(24).toString("base64url")}`,
  }));
  const at = toTimestamp(clock.now());
  const account: AccountRecord = { account_id: creds.account_id, environment: "production", currency: "USD", page_quota: 100, product_quota: DEFAULT_PRODUCT_QUOTA, media_quota_bytes: DEFAULT_MEDIA_QUOTA_BYTES, created_at: at };
  await setIfAbsent(storage, `accounts:${creds.account_id}`, account);
  const token: TokenRecord = { account_id: creds.account_id, scopes: [...SCOPES], expires_at: null, created_at: at };
  await setIfAbsent(storage, `tokens:${sha256Hex(creds.token)}`, token);
  const app: AppRecord = { application_id: creds.application_id, name: "lp dev application", account_ids: [creds.account_id], secret_hash: sha256Hex(creds.client_secret), created_at: at };
  await setIfAbsent(storage, `apps:${creds.application_id}`, app);
  return creds;
}

const ADMIN_KEY = "meta:admin_key";

/**
 * The admin key of `/_admin`: `explicit` (LP_ADMIN_KEY) when given, else the key generated on the first
 * start and kept beside the dev credentials, so a saved `.lp.env` or an exported key survives a restart
 * as every other credential does. Generated keys are 38 characters, over the 32 a network bind needs.
 */
export async function ensureAdminKey(storage: Storage, ids: IdSource, explicit?: string): Promise<string> {
  if (explicit) return explicit;
  const usable = (stored: { key?: unknown }) => typeof stored?.key === "string" && stored.key.length > 0;
  const stored = await claimItem<{ key?: unknown }>(storage, ADMIN_KEY, () => ({ key: `lpadm_${ids.bytes(24).toString("base64url")}` }), usable);
  return stored.key as string;
}
