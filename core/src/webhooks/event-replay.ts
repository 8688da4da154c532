import type { ReplayResult } from "@lp/contract";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import type { ChangeMark } from "../db/change-mark.js";
import type { Database } from "../db/database.js";
import { LpError, notFound } from "../errors.js";
import { isPrefixedId } from "../ids.js";
import type { KeysetPosition } from "../lists/cursor.js";
import type { DeliveryRepository } from "./delivery-repository.js";
import type { EndpointRecord } from "./records.js";
import { toNewDelivery } from "./records.js";
import type { EndpointRepository } from "./endpoint-repository.js";

/** How long events are kept for replay by default: 7 days (`lp serve --event-retention`). */
export const DEFAULT_EVENT_RETENTION_MS = 7 * 86_400_000;

/** Events read, and their deliveries written, per transaction of a replay. */
const REPLAY_PAGE = 500;

/** What a replay sends: the events of a window, of some types (all the endpoint subscribes to by default). */
export interface ReplayWindow {
  /** Epoch ms; default (and at the earliest) the oldest event kept: now less the retention. */
  since?: number;
  /** Epoch ms; default now. */
  until?: number;
  /** Only these types (each must be one the endpoint subscribes to, or nothing of it is sent). */
  eventTypes?: readonly string[];
}

/** What a replay did (the contract's answer). */
export type { ReplayResult };

/** What replays need. */
export interface ReplayDeps {
  database: Database;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  clock: Clock;
  ids: IdSource;
  /** How long events are kept for replay, by the core's clock. */
  retentionMs: number;
  /** Tells the delivery worker that deliveries are due. */
  wake: () => void;
}

/**
 * Sends an endpoint the events of a window again (or for the first time, when it was created after them):
 * each stored event in the window, within the retention, that the endpoint would have been sent by the
 * fan-out's rules (type subscribed, the endpoint's environment, the event's account among its application's
 * installs) becomes one new delivery with its own id (the webhook-id), carrying the event as it was (same
 * id, timestamp, data), due now and retried like any other.
 */
export function createEventReplay(deps: ReplayDeps) {
  const { database, clock } = deps;

  async function endpointOf(id: string): Promise<EndpointRecord> {
    const endpoint = isPrefixedId(id, "we") ? await deps.endpoints.get(database.db, id) : null;
    if (!endpoint) throw notFound("webhook endpoint", id);
    if (endpoint.status === "disabled" || endpoint.status === "pending_verification") {
      throw new LpError("validation_error", `Webhook endpoint '${id}' is ${endpoint.status === "disabled" ? "disabled" : "not verified yet"}: nothing would be sent to it. Enable or verify it first.`, { status: endpoint.status });
    }
    return endpoint;
  }

  return {
    /** Makes the window's deliveries, a page of events per transaction (the first one also takes `change`). */
    async replay(endpointId: string, window: ReplayWindow, change?: ChangeMark): Promise<ReplayResult> {
      const endpoint = await endpointOf(endpointId);
      const nowMs = clock.now().getTime();
      // What is older than the retention is not kept: a window reaching further starts at the oldest kept.
      const oldest = nowMs - deps.retentionMs;
      const since = Math.max(window.since ?? oldest, oldest);
      const until = window.until ?? nowMs;
      if (since > until) throw new LpError("validation_error", "since is later than until.");
      const asked = window.eventTypes?.length ? new Set(window.eventTypes) : null;
      const types = endpoint.events.filter((type) => !asked || asked.has(type));
      const answer = (replayed: number): ReplayResult => ({ endpoint_id: endpoint.id, replayed, since: toTimestamp(new Date(since)), until: toTimestamp(new Date(until)) });
      if (types.length === 0) {
        if (change) await database.transaction(change);
        return answer(0);
      }

      const at = toTimestamp(clock.now());
      let replayed = 0;
      let after: KeysetPosition | undefined;
      for (;;) {
        const page = await deps.deliveries.eventsSince(database.db, {
          from: toTimestamp(new Date(since)),
          to: toTimestamp(new Date(until)),
          types,
          environment: endpoint.environment,
          applicationId: endpoint.application_id,
          after,
          limit: REPLAY_PAGE,
        });
        await database.transaction(async (tx) => {
          for (const event of page.items) {
            const first = toNewDelivery(event, endpoint, at);
            // The fan-out's id for (event, endpoint) and 8 hex digits more: a new message, never the delivery already made.
            await deps.deliveries.addDelivery(tx, { ...first, id: `${first.id}${deps.ids.bytes(4).toString("hex")}` });
          }
          if (after === undefined) await change?.(tx);
        });
        replayed += page.items.length;
        if (page.items.length > 0) deps.wake();
        if (!page.next) break;
        after = page.next;
      }
      return answer(replayed);
    },
  };
}
