import { toJson } from "../db/column-types.js";
import type { Database, Queries } from "../db/database.js";
import type { IdempotencyTables } from "../db/tables/idempotency.js";
import { createRowReader, type ColumnRule, type JsonShape, type RowReader, type UnreadableRows } from "../db/unreadable-rows.js";
import type { StoredResponse } from "./idempotency.js";

/** Names one Idempotency-Key record: the principal it belongs to, and the key within it. */
export interface IdempotencyKeyRef {
  account_id: string;
  /** The service's hash of the request's method, path and Idempotency-Key. */
  key: string;
  /** The Idempotency-Key as the request sent it: what the error of a damaged record names (the row keeps its hash). */
  sent?: string;
}

/** What {@link IdempotencyRepository.claim} is asked. Times are ISO text by the core's clock. */
export interface IdempotencyClaim extends IdempotencyKeyRef {
  /** The hash of the request (method, path and raw body). */
  fingerprint: string;
  /** Who runs the request (a process's id and the request's): only it may complete or release the claim. */
  owner: string;
  now: string;
  /** When the claim lapses: a process that died running the request leaves the key to be taken over then. */
  claimUntil: string;
  /** When the record is gone (the 24 hours a response is replayed for). */
  expiresAt: string;
}

/** A record as stored. */
export interface IdempotencyEntry extends IdempotencyKeyRef {
  fingerprint: string;
  /** The answer to replay; null while the request runs (or when its change was made and its answer lost). */
  response: StoredResponse | null;
  claimed_by: string | null;
  claim_expires_at: string | null;
  /** When the request's change was committed; null before (or when it made none). */
  changed_at: string | null;
  created_at: string;
  expires_at: string;
}

/** What a claim found: the key is this caller's to run, or the record already there (live at `now`). */
export type ClaimOutcome = { owned: true } | { owned: false; entry: IdempotencyEntry };

type Row = IdempotencyTables["idempotency_keys"];

/** What a record's row must hold (SQLite keeps whatever a hand edit puts in a column). */
const RULES: Record<string, ColumnRule> = {
  fingerprint: "text",
  response_status: "integer?",
  response_body: "text?",
  claimed_by: "text?",
  claim_expires_at: "text?",
  changed_at: "text?",
  created_at: "text",
  expires_at: "text",
};
/** The stored answer's headers: text by name. */
const HEADERS: JsonShape = { what: "headers", nullable: true, fields: {}, is: (value) => Object.values(value as object).every((v) => typeof v === "string") };

/**
 * What a request whose key's record is damaged is told: it is not run, since the record may stand for a change
 * already made (the key exists so that a request is never made twice), and garbage is never replayed.
 */
const DAMAGED_KEY_ADVICE =
  "The request was not run: it may have made its change already. Read the resource it changes, or send the request with a new Idempotency-Key.";

// A claim whose record vanishes between its two statements (released or swept meanwhile) tries again; the
// record is only ever removed so it can be written anew, so this ends unless something removes it every time.
const CLAIM_ATTEMPTS = 8;

/**
 * Idempotency-Key records on the relational schema (migration 0006). A claim is one upsert on the primary
 * key (account, key): it inserts the record, or takes over one that has expired or whose claim lapsed before
 * any change was made, and otherwise writes nothing and answers the record that is there, for the service to
 * replay it (same fingerprint, answered), refuse it as in use (not answered yet) or as reused (another
 * fingerprint). On PostgreSQL two claims at once of one key serialise on its row: exactly one owns it.
 *
 * `claim`, `markChanged` and `complete` take the queries to run on: the database, or the transaction of
 * the request's change, so its record commits with that change or not at all. A damaged record is read
 * as `UnreadableRowError` naming the key as sent (named once through `unreadable`).
 */
export function createIdempotencyRepository(database: Database, unreadable?: UnreadableRows) {
  const rows = createRowReader("idempotency key", "idempotency_keys", unreadable, DAMAGED_KEY_ADVICE);

  async function read(ref: IdempotencyKeyRef, q: Queries = database.db): Promise<IdempotencyEntry | null> {
    const row = await q.selectFrom("idempotency_keys").selectAll().where("account_id", "=", ref.account_id).where("key", "=", ref.key).executeTakeFirst();
    return row ? toEntry(rows, row, ref.sent ?? ref.key) : null;
  }

  return {
    /**
     * Claims the key for `owner`: `owned` when this caller inserted the record or took over one that was
     * free (expired at `now`, or claimed by someone whose claim lapsed and who made no change), else the
     * record found, which nothing here changed.
     */
    async claim(claim: IdempotencyClaim, q: Queries = database.db): Promise<ClaimOutcome> {
      const fresh = {
        fingerprint: claim.fingerprint,
        response_status: null,
        response_headers: null,
        response_body: null,
        claimed_by: claim.owner,
        claim_expires_at: claim.claimUntil,
        changed_at: null,
        created_at: claim.now,
        expires_at: claim.expiresAt,
      };
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
        const claimed = await q
          .insertInto("idempotency_keys")
          .values({ account_id: claim.account_id, key: claim.key, ...fresh })
          .onConflict((oc) =>
            oc
              .columns(["account_id", "key"])
              .doUpdateSet(fresh)
              .where((eb) =>
                eb.or([
                  eb("idempotency_keys.expires_at", "<=", claim.now),
                  eb.and([eb("idempotency_keys.response_status", "is", null), eb("idempotency_keys.changed_at", "is", null), eb("idempotency_keys.claim_expires_at", "<=", claim.now)]),
                ]),
              ),
          )
          .returning("key")
          .executeTakeFirst();
        if (claimed) return { owned: true };
        const entry = await read(claim, q);
        if (entry) return { owned: false, entry };
      }
      throw new Error(`The Idempotency-Key record ${claim.account_id}/${claim.key} was removed during each of ${CLAIM_ATTEMPTS} claims`);
    },

    /**
     * Records, in the transaction of the request's change, that the change is made: from then on the key
     * is never taken over, even once the claim lapses. False when the claim is no longer `owner`'s (it lapsed
     * and another took the key): the caller must roll its change back.
     */
    async markChanged(ref: IdempotencyKeyRef & { owner: string; at: string }, q: Queries = database.db): Promise<boolean> {
      const result = await q
        .updateTable("idempotency_keys")
        .set({ changed_at: ref.at })
        .where("account_id", "=", ref.account_id)
        .where("key", "=", ref.key)
        .where("claimed_by", "=", ref.owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Stores the answer to replay until `expiresAt` and ends the claim, only while the claim is still
     * `owner`'s; false (nothing written) when another took the key over or it was removed.
     */
    async complete(ref: IdempotencyKeyRef & { owner: string; response: StoredResponse; expiresAt: string }, q: Queries = database.db): Promise<boolean> {
      const result = await q
        .updateTable("idempotency_keys")
        .set({
          response_status: ref.response.status,
          response_headers: toJson(ref.response.headers),
          response_body: ref.response.body,
          claimed_by: null,
          claim_expires_at: null,
          expires_at: ref.expiresAt,
        })
        .where("account_id", "=", ref.account_id)
        .where("key", "=", ref.key)
        .where("claimed_by", "=", ref.owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    /**
     * Removes `owner`'s claim of a request that stored no answer and made no change (it failed validation or
     * authorisation), so the key can be sent again at once. False when there was no such claim.
     */
    async release(ref: IdempotencyKeyRef & { owner: string }, q: Queries = database.db): Promise<boolean> {
      const result = await q
        .deleteFrom("idempotency_keys")
        .where("account_id", "=", ref.account_id)
        .where("key", "=", ref.key)
        .where("claimed_by", "=", ref.owner)
        .where("response_status", "is", null)
        .where("changed_at", "is", null)
        .executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },

    /**
     * Ends, at `now`, every claim still running then: claims of a process that stopped, when the caller knows
     * no other process uses the database. Their keys are then taken over, or, when a change was committed,
     * answered as made. Answers how many claims it ended.
     */
    async lapseClaims(now: string, q: Queries = database.db): Promise<number> {
      const result = await q
        .updateTable("idempotency_keys")
        .set({ claim_expires_at: now })
        .where("claimed_by", "is not", null)
        .where("claim_expires_at", ">", now)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** The record as stored (an expired one too, until it is deleted), or null. */
    read,

    /**
     * Deletes the records expired at `now` (a claim treats them as absent; they only take room), in one
     * statement over the expiry index, and answers how many.
     */
    async deleteExpired(now: string, q: Queries = database.db): Promise<number> {
      const result = await q.deleteFrom("idempotency_keys").where("expires_at", "<=", now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** The Idempotency-Key repository's methods. */
export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

function toEntry(rows: RowReader, row: Row, name: string): IdempotencyEntry {
  const at = `${row.account_id}/${row.key}`;
  const { response_headers } = rows.read(name, row, RULES, { response_headers: HEADERS }, at);
  // A status an answer cannot have would be a replay no client could read.
  if (row.response_status !== null && (row.response_status < 200 || row.response_status > 599)) throw rows.fail(name, `response_status is ${row.response_status}, not an HTTP status`, at);
  const headers = (response_headers ?? {}) as Record<string, string>;
  const response = row.response_status === null ? null : { status: row.response_status, headers, body: row.response_body ?? "" };
  return {
    account_id: row.account_id,
    key: row.key,
    fingerprint: row.fingerprint,
    response,
    claimed_by: row.claimed_by,
    claim_expires_at: row.claim_expires_at,
    changed_at: row.changed_at,
    created_at: row.created_at,
    expires_at: row.expires_at,
  };
}
