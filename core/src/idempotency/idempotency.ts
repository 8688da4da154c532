import type { Storage } from "unstorage";
import { sha256Hex, toTimestamp, type Clock } from "../deps.js";
import { LpError } from "../errors.js";
import type { Lock } from "../ports/lock.js";

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A response captured for replay. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface StoredRecord {
  fingerprint: string;
  response: StoredResponse;
  created_at: string;
  expires_at: string;
}

/** What a request with an `Idempotency-Key` should do. */
export type IdempotencyDecision =
  | { kind: "replay"; response: StoredResponse }
  | { kind: "proceed"; finish(response: StoredResponse | null): Promise<void> };

/** Identifies a key: it is scoped to account, method and path. */
export interface IdempotencyScope {
  account_id: string;
  method: string;
  path: string;
  key: string;
}

/**
 * Idempotency keys. A request is fingerprinted by its raw body; the first one runs, and its response is
 * stored for 24 hours on the injected clock. A concurrent duplicate gets `idempotency_key_in_use`; a
 * different request with the same key gets `idempotency_key_reused`. `finish(null)` stores nothing, so a
 * request that failed validation or authentication can be sent again with the same key.
 */
export function createIdempotency({ storage, clock, lock }: { storage: Storage; clock: Clock; lock: Lock }) {
  const running = new Map<string, string>();

  return {
    async begin(scope: IdempotencyScope, rawBody: string): Promise<IdempotencyDecision> {
      if (scope.key.length < 1 || scope.key.length > 255) {
        throw new LpError("validation_error", "Idempotency-Key must be 1 to 255 characters.", {
          issues: [{ path: "header.Idempotency-Key", code: "too_long", message: "must be 1 to 255 characters" }],
        });
      }
      const id = sha256Hex(`${scope.method} ${scope.path} ${scope.key}`);
      const storageKey = `idem:${scope.account_id}:${id}`;
      const fingerprint = sha256Hex(`${scope.method} ${scope.path}\n${rawBody}`);
      return lock.withLock(storageKey, async (): Promise<IdempotencyDecision> => {
        const inFlight = running.get(storageKey);
        if (inFlight !== undefined) {
          if (inFlight !== fingerprint) throw reused();
          throw new LpError("idempotency_key_in_use", "A request with this Idempotency-Key is still being processed; retry shortly.");
        }
        const stored = await storage.getItem<StoredRecord>(storageKey);
        if (stored && Date.parse(stored.expires_at) > clock.now().getTime()) {
          if (stored.fingerprint !== fingerprint) throw reused();
          return { kind: "replay", response: stored.response };
        }
        running.set(storageKey, fingerprint);
        return {
          kind: "proceed",
          finish: async (response) => {
            try {
              if (response) {
                const at = clock.now();
                const record: StoredRecord = {
                  fingerprint,
                  response,
                  created_at: toTimestamp(at),
                  expires_at: toTimestamp(new Date(at.getTime() + IDEMPOTENCY_TTL_MS)),
                };
                await storage.setItem(storageKey, record);
              }
            } finally {
              running.delete(storageKey);
            }
          },
        };
      });
    },
  };
}

function reused(): LpError {
  return new LpError(
    "idempotency_key_reused",
    "This Idempotency-Key was already used with a different request; use a new key for a new request.",
  );
}

export type Idempotency = ReturnType<typeof createIdempotency>;
