import { sha256Hex, type Clock, type IdSource } from "../deps.js";
import type { Database } from "../db/database.js";
import { createAccountRepository } from "./account-repository.js";
import { ADMIN_KEY, ensureAdminKey } from "./dev-credentials.js";

/**
 * A process given an admin key that is not the one its database keeps: processes on one database are one
 * service, and behind one load balancer two keys would make every admin call succeed on some processes only.
 */
export class AdminKeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AdminKeyMismatchError";
  }
}

/**
 * A fingerprint of an admin key that operators compare across processes: 12 hex digits of a labelled
 * SHA-256, enough to tell keys apart, never to recover one.
 */
export function toAdminKeyFingerprint(key: string): string {
  return sha256Hex(`lp admin key\n${key}`).slice(0, 12);
}

/**
 * The admin key of a service whose processes share one database (PostgreSQL): the `admin_key` setting is
 * the key. The first process to start stores its `explicit` key (LP_ADMIN_KEY), or a generated one when
 * it has none; a later process without a key takes the stored one, and one whose `explicit` key differs
 * is refused with an {@link AdminKeyMismatchError} naming both fingerprints (never the keys). The stored
 * key changes only by changing the setting (docs/scale-out.md, "Changing the admin key").
 */
export async function ensureSharedAdminKey(database: Database, clock: Clock, ids: IdSource, explicit?: string): Promise<string> {
  if (!explicit) return ensureAdminKey(database, clock, ids);
  // Written only if absent (`ON CONFLICT DO NOTHING`), then read: processes starting together agree on the first.
  const stored = await createAccountRepository({ database, clock }).readOrCreateSetting(ADMIN_KEY, () => explicit);
  if (stored === explicit) return stored;
  throw new AdminKeyMismatchError(
    `the admin key given (--admin-key or LP_ADMIN_KEY, fingerprint ${toAdminKeyFingerprint(explicit)}) is not the one this database keeps (fingerprint ${toAdminKeyFingerprint(stored)}): ` +
      "every process on one database serves one admin key. Start this process with the same key, or with none to take the stored one; to change it, see docs/scale-out.md (Changing the admin key).",
  );
}
