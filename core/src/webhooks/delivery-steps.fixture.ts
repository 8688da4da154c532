import type { Database } from "../db/database.js";
import { createDeliveryClaims } from "./delivery-claims.js";
import { createDeliveryRepository } from "./delivery-repository.js";
import { createEndpointRepository } from "./endpoint-repository.js";
import type { AttemptRecord, DeliveryRecord, EndpointRecord } from "./records.js";
import { at, toTestEvent } from "./webhook-rows.fixture.js";

/** A failed attempt (503, "busy") numbered `number`, started at `started_at`. */
export const failedAttempt = (number: number, started_at: string): AttemptRecord => ({
  number,
  trigger: "scheduled",
  started_at,
  status_code: 503,
  latency_ms: 40,
  outcome: "failed",
  error: "answered 503",
  response_body: "busy",
  truncated: false,
});

/** The webhook repositories of a suite's database, and the steps its delivery tests take with them. */
export function createDeliverySteps(database: Database) {
  const endpoints = createEndpointRepository(database.dialect);
  const deliveries = createDeliveryRepository();
  const claims = createDeliveryClaims(database.dialect);
  return {
    endpoints,
    deliveries,
    claims,
    addEndpoints: (...records: EndpointRecord[]) =>
      database.transaction(async (tx) => {
        for (const record of records) await endpoints.insert(tx, record);
        return records;
      }),
    /** Events `evt_<n>` on `targets`, one a second from `from` (seconds after 10:01), and their deliveries. */
    async fanOut(count: number, targets: EndpointRecord[], from = 0): Promise<DeliveryRecord[]> {
      const made: DeliveryRecord[] = [];
      for (let i = 0; i < count; i++) {
        const n = from + i;
        const event = toTestEvent(`evt_${String(n).padStart(4, "0")}`, { timestamp: at(1, n) });
        made.push(...(await database.transaction((tx) => deliveries.recordEvent(tx, event, targets))));
      }
      return made;
    },
    claim: (owner: string, now: string, limit = 10, leaseUntil = at(59)) => database.transaction((tx) => claims.claimDue(tx, { now, owner, leaseUntil, limit })),
    /** Records a failed attempt of a claimed delivery, due again at `nextAt`. */
    fail: (d: DeliveryRecord, owner: string, finished: string, nextAt: string | null) =>
      database.transaction((tx) =>
        claims.recordAttempt(tx, d.id, owner, failedAttempt(d.attempts.length + 1, finished), {
          ...d,
          status: nextAt ? "pending" : "failed",
          scheduled_attempts: d.scheduled_attempts + 1,
          auto_retry: nextAt !== null,
          next_attempt_at: nextAt,
          updated_at: finished,
        }),
      ),
  };
}

/** What {@link createDeliverySteps} gives a suite. */
export type DeliverySteps = ReturnType<typeof createDeliverySteps>;
