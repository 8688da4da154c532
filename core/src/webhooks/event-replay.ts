import type { ReplayResult } from "@lp/contract";
import type { AccountsService } from "../accounts/accounts-service.js";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { LpError, notFound } from "../errors.js";
import { isPrefixedId } from "../ids.js";
import type { DeliveryEngine } from "./delivery-engine.js";
import type { EventLog } from "./event-log.js";
import { toNewDelivery, type EndpointRecord } from "./records.js";
import type { WebhookStore } from "./webhook-store.js";

/** What a replay sends: the events of a window, of some types (all the endpoint subscribes to by default). */
export interface ReplayWindow {
  /** Epoch ms; default the oldest event kept. */
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
  store: WebhookStore;
  engine: DeliveryEngine;
  log: EventLog;
  clock: Clock;
  ids: IdSource;
  accounts: Pick<AccountsService, "getApp">;
}

/**
 * Sends an endpoint the events of a window again (or for the first time, when it was created after them):
 * each kept event in the window that the endpoint would have been sent, by the fan-out's rules (type
 * subscribed, the endpoint's environment, the event's account among its application's installs), becomes
 * one new delivery with its own id (the webhook-id), carrying the event as it was (same id, timestamp,
 * data), scheduled now and retried like any other.
 */
export function createEventReplay(deps: ReplayDeps) {
  const { store, clock } = deps;

  async function endpointOf(id: string): Promise<EndpointRecord> {
    if (!isPrefixedId(id, "we")) throw notFound("webhook endpoint", id);
    await store.syncEndpoints();
    const endpoint = store.endpoint(id);
    if (!endpoint) throw notFound("webhook endpoint", id);
    if (endpoint.status === "disabled" || endpoint.status === "pending_verification") {
      throw new LpError("validation_error", `Webhook endpoint '${id}' is ${endpoint.status === "disabled" ? "disabled" : "not verified yet"}: nothing would be sent to it. Enable or verify it first.`, { status: endpoint.status });
    }
    return endpoint;
  }

  return {
    async replay(endpointId: string, window: ReplayWindow): Promise<ReplayResult> {
      const endpoint = await endpointOf(endpointId);
      const nowMs = clock.now().getTime();
      const since = window.since ?? nowMs - deps.log.retentionMs;
      const until = window.until ?? nowMs;
      if (since > until) throw new LpError("validation_error", "since is later than until.");
      const types = window.eventTypes?.length ? new Set(window.eventTypes) : null;
      const installs = new Set((await deps.accounts.getApp(endpoint.application_id))?.account_ids ?? []);
      const events = deps.log.between(since, until, (e) =>
        endpoint.events.includes(e.type) && (!types || types.has(e.type)) && e.environment === endpoint.environment && e.account_id !== null && installs.has(e.account_id),
      );
      const at = toTimestamp(clock.now());
      for (const event of events) {
        const first = toNewDelivery(event, endpoint, at);
        // The fan-out's id for (event, endpoint) and 8 hex digits more: a new message, never the delivery already made.
        const delivery = { ...first, id: `${first.id}${deps.ids.bytes(4).toString("hex")}` };
        await store.saveDelivery(delivery, false);
        if (delivery.status === "pending") await deps.engine.schedule({ id: delivery.id, endpoint_id: endpoint.id }, delivery.next_attempt_at ? Date.parse(delivery.next_attempt_at) : nowMs);
      }
      return { endpoint_id: endpoint.id, replayed: events.length, since: toTimestamp(new Date(since)), until: toTimestamp(new Date(until)) };
    },
  };
}
