import type { Storage } from "unstorage";
import { sha256Hex, toTimestamp, type Clock } from "../deps.js";
import { LpError } from "../errors.js";
import type { Lock } from "../ports/lock.js";
import type { BatchFence, BatchOp } from "../storage/create-storage.js";
import type { RecordClaims } from "../storage/redis-claim.js";
import { directKeys } from "../storage/key-chunks.js";

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A response captured for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** How long a stored "executing" marker blocks its key when its process dies before finishing (shared stores). */
export const IDEMPOTENCY_EXECUTING_MS = 60 * 1000;

/** A key's record: the response to replay, or (shared stores only) the marker of a request still executing. */
interface StoredRecord {
  fingerprint: string;
  /** Who wrote an executing marker (shared stores with claims). */
  owner?: string;
  response: StoredResponse | null;
  /**
   * Written with the request's change, in the same batch (`storage/change-scope.ts`), before its answer:
   * found without an answer and with no live request behind it, it says the change was made and the answer
   * lost (the process stopped in between), so the request must not run again.
   */
  committed?: boolean;
  created_at: string;
  expires_at: string;
}

/** What a request with an `Idempotency-Key` should do. */
export type IdempotencyDecision =
  | { kind: "replay"; response: StoredResponse }
  | {
      kind: "proceed";
      /** The write that rides with the request's first change (`openChangeScope`); none on a shared store. */
      marker?: BatchOp;
      finish(response: StoredResponse | null): Promise<void>;
    };

/** Identifies a key: it is scoped to account, method and path. */
export interface IdempotencyScope {
  account_id: string;
  method: string;
  path: string;
  key: string;
}

/** What the idempotency store is built on. */
export interface IdempotencyDeps {
  storage: Storage;
  clock: Clock;
  lock: Lock;
  /**
   * Several processes share the store: the "executing" state is a stored marker (written under the shared
   * lock, expiring after {@link IDEMPOTENCY_EXECUTING_MS}) instead of this process's memory.
   */
  shared?: boolean;
  /** Fenced writes ({@link Stores.batch}): the marker is refused once the key's lock lease has ended. */
  batch?: (ops: readonly BatchOp[], fence?: BatchFence) => Promise<void>;
  /**
   * A shared store's atomic claim and finish ({@link Stores.claims}): then no lock is taken, and a key
   * costs two script runs (the claim, then the response stored) on top of the request it guards.
   */
  claims?: RecordClaims;
  /** Names a claimant (shared stores): only it may replace its marker. */
  owner?: () => string;
}

/**
 * Idempotency keys. A request is fingerprinted by its raw body; the first one runs, and its response is
 * stored for 24 hours on the injected clock. A concurrent duplicate gets `idempotency_key_in_use`; a
 * different request with the same key gets `idempotency_key_reused`. `finish(null)` stores nothing, so a
 * request that failed validation or authentication can be sent again with the same key.
 */
export function createIdempotency({ storage, clock, lock, shared = false, batch, claims, owner }: IdempotencyDeps) {
  // One process: what is executing lives here (nothing to clean up after a crash).
  const running = new Map<string, string>();

  /** Removes `key`'s record if it has expired at `now` and no request of this process is using the key. */
  async function sweepOne(key: string, now: Date): Promise<boolean> {
    if (claims && owner) return claims.sweep(key, toTimestamp(now));
    return lock.withLock(key, async () => {
      if (running.has(key)) return false;
      let stored: StoredRecord | null;
      try {
        stored = await storage.getItem<StoredRecord>(key);
      } catch (error) {
        // A damaged record is lp doctor's to report and quarantine, not the sweep's to drop.
        if (error instanceof LpError && error.code === "record_unreadable") return false;
        throw error;
      }
      if (!stored || typeof stored !== "object" || !(Date.parse(stored.expires_at) <= now.getTime())) return false;
      await storage.removeItem(key);
      return true;
    });
  }

  return {
    /**
     * Removes every record whose time is over (a stored response after 24 hours, a marker after its own
     * expiry) at the clock's now: expired records only take room, as `begin` treats them as absent. Walks the
     * accounts and their keys in chunks, a turn of the event loop between chunks; `stop` ends it between keys.
     * Answers how many it removed.
     */
    async sweep(stop: () => boolean = () => false): Promise<number> {
      const now = clock.now();
      let removed = 0;
      for await (const accountKeys of directKeys(storage, "accounts")) {
        for (const accountKey of accountKeys) {
          for await (const keys of directKeys(storage, `idem:${accountKey.slice("accounts:".length)}`)) {
            for (const key of keys) {
              if (stop()) return removed;
              if (await sweepOne(key, now)) removed += 1;
            }
          }
        }
      }
      return removed;
    },

    async begin(scope: IdempotencyScope, rawBody: string): Promise<IdempotencyDecision> {
      if (scope.key.length < 1 || scope.key.length > 255) {
        // zod's issue codes, as for any other field: an empty key (or one of spaces, which HTTP trims) is too small.
        const code = scope.key.length < 1 ? "too_small" : "too_long";
        throw new LpError("validation_error", `Idempotency-Key must be 1 to 255 characters (got ${scope.key.length}).`, {
          issues: [{ path: "header.Idempotency-Key", code, message: "must be 1 to 255 characters" }],
        });
      }
      const id = sha256Hex(`${scope.method} ${scope.path} ${scope.key}`);
      const storageKey = `idem:${scope.account_id}:${id}`;
      const fingerprint = sha256Hex(`${scope.method} ${scope.path}\n${rawBody}`);
      if (claims && owner) return claimShared(claims, storageKey, fingerprint, clock, owner());
      return lock.withLock(storageKey, async (lease): Promise<IdempotencyDecision> => {
        const inFlight = running.get(storageKey);
        if (inFlight !== undefined) throw inUse(inFlight, fingerprint);
        const stored = await storage.getItem<StoredRecord>(storageKey);
        if (stored && Date.parse(stored.expires_at) > clock.now().getTime()) {
          if (!stored.response && stored.committed && !shared) throw answerLost(stored.fingerprint, fingerprint);
          if (!stored.response) throw inUse(stored.fingerprint, fingerprint);
          if (stored.fingerprint !== fingerprint) throw reused();
          return { kind: "replay", response: stored.response };
        }
        const at = clock.now();
        if (shared) {
          // Other processes see the marker; fenced (or checked), so no one else can have decided meanwhile.
          const marker = record(fingerprint, null, at, IDEMPOTENCY_EXECUTING_MS);
          if (batch && lease.fence) await batch([{ key: storageKey, value: marker }], lease.fence);
          else {
            await lease.assertHeld();
            await storage.setItem(storageKey, marker);
          }
        } else running.set(storageKey, fingerprint);
        return {
          kind: "proceed",
          ...(!shared && { marker: { key: storageKey, value: { ...record(fingerprint, null, at, IDEMPOTENCY_TTL_MS), committed: true } } }),
          finish: async (response) => {
            try {
              if (response) await storage.setItem(storageKey, record(fingerprint, response, clock.now(), IDEMPOTENCY_TTL_MS));
              else if (shared) await storage.removeItem(storageKey);
            } finally {
              running.delete(storageKey);
            }
          },
        };
      });
    },
  };
}

/**
 * A key on a shared store with atomic claims: the claim writes the executing marker unless a live record is
 * there (then it decides as the locked path does), and the finish replaces this claimant's marker only.
 */
async function claimShared(claims: RecordClaims, key: string, fingerprint: string, clock: Clock, by: string): Promise<IdempotencyDecision> {
  const at = clock.now();
  const marker: StoredRecord = { ...record(fingerprint, null, at, IDEMPOTENCY_EXECUTING_MS), owner: by };
  const live = await claims.claim(key, JSON.stringify(marker), toTimestamp(at));
  if (live !== null) {
    const stored = JSON.parse(live) as StoredRecord;
    if (!stored.response) throw inUse(stored.fingerprint, fingerprint);
    if (stored.fingerprint !== fingerprint) throw reused();
    return { kind: "replay", response: stored.response };
  }
  return {
    kind: "proceed",
    finish: async (response) => {
      await claims.finish(key, by, response ? JSON.stringify(record(fingerprint, response, clock.now(), IDEMPOTENCY_TTL_MS)) : null);
    },
  };
}

function record(fingerprint: string, response: StoredResponse | null, at: Date, ttlMs: number): StoredRecord {
  return { fingerprint, response, created_at: toTimestamp(at), expires_at: toTimestamp(new Date(at.getTime() + ttlMs)) };
}

function inUse(running: string, fingerprint: string): LpError {
  if (running !== fingerprint) return reused();
  return new LpError("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed; retry shortly.");
}

/** The change of a request with this key was made, and its answer lost when the process stopped. */
function answerLost(stored: string, fingerprint: string): LpError {
  if (stored !== fingerprint) return reused();
  return new LpError(
    "idempotency_key_in_use",
    "The request with this Idempotency-Key made its change, but lp stopped before it could store the answer. The change is kept: read the resource instead of sending the request again.",
  );
}

function reused(): LpError {
  return new LpError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request; use a new key for a new request.",
  );
}

export type Idempotency = ReturnType<typeof createIdempotency>;
