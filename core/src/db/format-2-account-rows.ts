import { DEFAULT_MEDIA_QUOTA_BYTES, DEFAULT_PRODUCT_QUOTA } from "../accounts/schemas.js";
import { toJson } from "./column-types.js";
import type { RowBuild } from "./format-2-row-build.js";

/**
 * Accounts (into `build.accounts`, which every later area checks its records against), their tokens, and
 * applications with the accounts they act for. Answers the applications written.
 */
export function addAccountRows(build: RowBuild): Set<string> {
  const { byKind, add, leave, once, accounts, needAccount } = build;
  for (const { key, record: a } of byKind.account) {
    if (!once("accounts", a.account_id, key)) continue;
    accounts.add(a.account_id);
    add("accounts", {
      account_id: a.account_id,
      environment: a.environment,
      currency: a.currency,
      page_quota: a.page_quota,
      product_quota: a.product_quota ?? DEFAULT_PRODUCT_QUOTA,
      media_quota_bytes: a.media_quota_bytes ?? DEFAULT_MEDIA_QUOTA_BYTES,
      created_at: a.created_at,
      updated_at: a.created_at,
    });
  }

  for (const { key, parts, record: t } of byKind.token) {
    if (needAccount(key, t.account_id)) add("tokens", { token_hash: parts[0]!, account_id: t.account_id, scopes: toJson(t.scopes), expires_at: t.expires_at, created_at: t.created_at });
  }

  const applications = new Set<string>();
  for (const { key, record: app } of byKind.app) {
    if (!once("applications", app.application_id, key)) continue;
    applications.add(app.application_id);
    add("applications", { application_id: app.application_id, name: app.name, secret_hash: app.secret_hash, created_at: app.created_at, updated_at: app.created_at });
    // The accounts it acts for, duplicates dropped (the first place kept); one that is gone is left out of the list.
    const linked = [...new Set(app.account_ids)];
    for (const accountId of linked.filter((a) => !accounts.has(a))) leave(`${key} (account ${accountId})`, `the application acts for account ${accountId}, which is not there`);
    linked.filter((a) => accounts.has(a)).forEach((account_id, position) => add("application_accounts", { application_id: app.application_id, account_id, position }));
  }
  return applications;
}

/** The accounts' Idempotency-Key records: an answered one with its answer, one still executing as a claim of its key. */
export function addIdempotencyRows(build: RowBuild): void {
  const { byKind, add, needAccount } = build;
  for (const { key, parts, record: r } of byKind.idempotency) {
    const [accountId, hash] = parts as [string, string];
    if (!needAccount(key, accountId)) continue;
    const answered = r.response !== null;
    add("idempotency_keys", {
      account_id: accountId,
      key: hash,
      fingerprint: r.fingerprint,
      response_status: r.response?.status ?? null,
      response_headers: r.response ? toJson(r.response.headers) : null,
      response_body: r.response?.body ?? null,
      // An executing marker holds its key until its own expiry; one written with its change (`committed`)
      // says the change was made and its answer lost: never taken over.
      claimed_by: answered ? null : (r.owner ?? null),
      claim_expires_at: answered ? null : r.expires_at,
      changed_at: r.committed ? r.created_at : null,
      created_at: r.created_at,
      expires_at: r.expires_at,
    });
  }
}
