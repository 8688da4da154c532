/** Rows of the Idempotency-Key records (migration 0006). */
export interface IdempotencyTables {
  idempotency_keys: {
    /** The principal the key belongs to. */
    account_id: string;
    /** The key within the account (the service's hash of method, path and Idempotency-Key). */
    key: string;
    /** The hash of the request first sent with the key. */
    fingerprint: string;
    /** The stored answer: status, headers (JSON object) and body; null until it is stored. */
    response_status: number | null;
    response_headers: string | null;
    response_body: string | null;
    /** Who runs the request, and until when that claim holds; null once answered. */
    claimed_by: string | null;
    claim_expires_at: string | null;
    /** When the request's change was committed (with it, in its transaction); null before. */
    changed_at: string | null;
    created_at: string;
    expires_at: string;
  };
}
