import { sha256Hex, toTimestamp, type Clock } from "../deps.js";
import type { ChangeMark } from "../db/change-mark.js";
import type { Database } from "../db/database.js";
import type { UnreadableRows } from "../db/unreadable-rows.js";
import { LpError } from "../errors.js";
import { createIdempotencyRepository, type IdempotencyEntry, type IdempotencyKeyRef } from "./idempotency-repository.js";

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A response captured for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * How long a claim holds its key for the request running it: a process that dies mid-request leaves the key
 * to be taken over after this (unless its change was committed: then the key is never run again).
 */
export const IDEMPOTENCY_EXECUTING_MS = 60 * 1000;

/** What a request with an `Idempotency-Key` should do. */
export type IdempotencyDecision =
  | { kind: "replay"; response: StoredResponse }
  | {
      kind: "proceed";
      /**
       * Handed to the service that makes the request's change, which awaits it in the change's transaction:
       * the key's record says "changed" exactly when the change is committed. It throws (rolling the change
       * back) when the claim lapsed and another request took the key.
       */
      change: ChangeMark;
      /**
       * Ends the claim. A `replayable` response is stored for replay; any other (or none) frees the key so it
       * can be sent again, unless the request's change was committed: then its answer is kept, whatever it is.
       */
      finish(response: StoredResponse | null, replayable: boolean): Promise<void>;
    };

/** Identifies a key: it is scoped to account, method and path. */
export interface IdempotencyScope {
  account_id: string;
  method: string;
  path: string;
  key: string;
}

/** What the idempotency service is built on. */
export interface IdempotencyDeps {
  database: Database;
  clock: Clock;
  /** Names a claimant (a request): only it may mark, complete or release its claim. */
  owner: () => string;
  /** Names in the log, once each, the records a read cannot take. */
  unreadableRows?: UnreadableRows;
}

/**
 * Idempotency keys on the `idempotency_keys` table (`idempotency-repository.ts`). A request is fingerprinted
 * by its raw body; the first one claims the key (one upsert), runs, and its response is stored for 24 hours
 * on the injected clock. A duplicate while it runs gets `idempotency_key_in_use`; a different request with
 * the same key gets `idempotency_key_reused`. Work on the key is the engine's: the primary key decides
 * which of simultaneous requests runs, and the mark of the change commits with the change.
 */
export function createIdempotency({ database, clock, owner, unreadableRows }: IdempotencyDeps) {
  const repository = createIdempotencyRepository(database, unreadableRows);
  const at = (offsetMs = 0) => toTimestamp(new Date(clock.now().getTime() + offsetMs));

  return {
    /**
     * Ends the claims an earlier process left running. On SQLite the process that opens the database is its
     * only user (the data dir is locked), so such a claim's request is gone: a key whose change it committed
     * answers that at once, any other runs again. On PostgreSQL other processes may be running theirs: their
     * claims lapse by time alone.
     */
    async recover(): Promise<number> {
      if (database.dialect !== "sqlite") return 0;
      return repository.lapseClaims(at());
    },

    /**
     * Removes every record expired at the clock's now (a claim treats them as absent; they only take room),
     * in one statement. Answers how many it removed.
     */
    sweep: (): Promise<number> => repository.deleteExpired(at()),

    async begin(scope: IdempotencyScope, rawBody: string): Promise<IdempotencyDecision> {
      if (scope.key.length < 1 || scope.key.length > 255) {
        // zod's issue codes, as for any other field: an empty key (or one of spaces, which HTTP trims) is too small.
        const code = scope.key.length < 1 ? "too_small" : "too_long";
        throw new LpError("validation_error", `Idempotency-Key must be 1 to 255 characters (got ${scope.key.length}).`, {
          issues: [{ path: "header.Idempotency-Key", code, message: "must be 1 to 255 characters" }],
        });
      }
      const ref: IdempotencyKeyRef = { account_id: scope.account_id, key: sha256Hex(`${scope.method} ${scope.path} ${scope.key}`), sent: scope.key };
      const fingerprint = sha256Hex(`${scope.method} ${scope.path}\n${rawBody}`);
      const by = owner();
      const now = at();
      const claimed = await repository.claim({ ...ref, fingerprint, owner: by, now, claimUntil: at(IDEMPOTENCY_EXECUTING_MS), expiresAt: at(IDEMPOTENCY_TTL_MS) });
      if (!claimed.owned) return { kind: "replay", response: toReplay(claimed.entry, fingerprint, now) };
      const mine = { ...ref, owner: by };
      return {
        kind: "proceed",
        change: async (tx) => {
          if (!(await repository.markChanged({ ...mine, at: at() }, tx))) throw claimLost();
        },
        async finish(response, replayable) {
          const complete = (stored: StoredResponse) => repository.complete({ ...mine, response: stored, expiresAt: at(IDEMPOTENCY_TTL_MS) });
          if (response && replayable) {
            await complete(response);
            return;
          }
          // Not worth replaying: the key is freed, unless the change was committed (the release refuses then).
          if (!(await repository.release(mine)) && response) await complete(response);
        },
      };
    },
  };
}

/** What a key someone else holds says to a request with `fingerprint`: its answer to replay, else the error it throws. */
function toReplay(entry: IdempotencyEntry, fingerprint: string, now: string): StoredResponse {
  if (entry.fingerprint !== fingerprint) throw reused();
  if (entry.response) return entry.response;
  if (entry.claim_expires_at !== null && entry.claim_expires_at > now) throw inUse();
  if (entry.changed_at !== null) throw answerLost();
  // A lapsed claim with no change is taken over by the next claim; this one lost the race to another.
  throw inUse();
}

function inUse(): LpError {
  return new LpError("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed; retry shortly.");
}

/** The change of a request with this key was made, and its answer lost when the process stopped. */
function answerLost(): LpError {
  return new LpError(
    "idempotency_key_in_use",
    "The request with this Idempotency-Key made its change, but lp stopped before it could store the answer. The change is kept: read the resource instead of sending the request again.",
  );
}

/** The claim lapsed while the request ran and another request took the key: this one's change is rolled back. */
function claimLost(): LpError {
  return new LpError("idempotency_key_in_use", "This request held its Idempotency-Key too long and another request with the key took it over; nothing was changed.");
}

function reused(): LpError {
  return new LpError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request; use a new key for a new request.",
  );
}

export type Idempotency = ReturnType<typeof createIdempotency>;
