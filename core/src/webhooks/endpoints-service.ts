import { generateSecret } from "@lp/webhooks";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { LpError, notFound, validationError } from "../errors.js";
import { isPrefixedId } from "../ids.js";
import type { CursorCodec } from "../lists/cursor.js";
import type { Lock } from "../ports/lock.js";
import { paginate } from "../lists/paginate.js";
import type { AddressGuard } from "./address-guard.js";
import type { DeliveryEngine } from "./delivery-engine.js";
import { TEST_EVENT_TYPE } from "./attempt-outcome.js";
import { toNewDelivery } from "./records.js";
import { toOrderedId } from "./ordered-id.js";
import { toDeliveryView, toEndpointView, type DeliveryRecord, type EndpointRecord, type EventRecord } from "./records.js";
import { closedCircuit } from "./retry-policy.js";
import type { DeliveryListQuery, EndpointCreateInput, EndpointListQuery, EndpointUpdateInput } from "./schemas.js";
import { runChallenge, type ChallengeDeps } from "./verification.js";
import type { WebhookStore } from "./webhook-store.js";
import { skipUnreadable } from "../storage/record-check.js";
import type { ChangeMark } from "../db/change-mark.js";

/** What the developer-plane operations need. */
export interface EndpointsDeps {
  store: WebhookStore;
  engine: DeliveryEngine;
  guard: AddressGuard;
  cursors: CursorCodec;
  lock: Lock;
  clock: Clock;
  ids: IdSource;
  challenge: ChallengeDeps;
  /** Most endpoints one application may have (DESIGN §14; `lp serve --max-endpoints`). */
  maxEndpoints: number;
}

/** Default of {@link EndpointsDeps.maxEndpoints}. */
export const DEFAULT_MAX_ENDPOINTS = 100;

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * The webhook endpoints of partner applications: the ten operations of the developer plane. Every
 * lookup is by (application, endpoint), so another application's endpoint is simply not found.
 */
export function createEndpointsService(deps: EndpointsDeps) {
  const { store, clock, ids } = deps;
  const now = () => toTimestamp(clock.now());

  async function requireEndpoint(appId: string, id: string): Promise<EndpointRecord> {
    const endpoint = isPrefixedId(id, "we") ? await store.fetchEndpoint(appId, id) : undefined;
    if (!endpoint) throw notFound("webhook endpoint", id);
    return endpoint;
  }

  async function assertReachable(url: string): Promise<void> {
    const problem = await deps.guard.check(url);
    if (problem) throw validationError([{ path: "url", code: "blocked_address", message: problem }]);
  }

  /** Runs the challenge and applies its outcome: only a success makes the endpoint active. */
  async function verifyEndpoint(endpoint: EndpointRecord) {
    const result = await runChallenge(deps.challenge, endpoint);
    const ok = result.outcome === "succeeded";
    const next = await deps.engine.exclusive(endpoint.id, async () => {
      const current = await store.fetchEndpoint(endpoint.application_id, endpoint.id);
      if (!current) throw notFound("webhook endpoint", endpoint.id);
      const changed: EndpointRecord = ok
        ? { ...current, status: "active", disabled_reason: null, circuit: closedCircuit(), last_verification: result, updated_at: now() }
        : { ...current, last_verification: result, updated_at: now() };
      await store.putEndpoint(changed);
      return changed;
    });
    if (ok) await deps.engine.resume(next.id);
    const { at: _at, error, ...rest } = result;
    return { ...rest, ...(error ? { error } : {}), endpoint: toEndpointView(next) };
  }

  return {
    /** Creates an endpoint from a checked body (`endpointCreateSchema`'s output) and runs its challenge. */
    async create(appId: string, body: EndpointCreateInput, _change?: ChangeMark) {
      await assertReachable(body.url);
      const at = now();
      const secret = generateSecret();
      const endpoint: EndpointRecord = {
        id: toOrderedId("we", clock, ids),
        application_id: appId,
        url: body.url,
        events: body.events,
        environment: body.environment,
        concurrency_limit: body.concurrency_limit,
        status: "pending_verification",
        disabled_reason: null,
        secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        circuit: closedCircuit(),
        last_verification: null,
        created_at: at,
        updated_at: at,
      };
      // Counted and stored under the application's lock, so parallel creates cannot overshoot the cap.
      await deps.lock.withLock(`webhook-endpoints:${appId}`, async () => {
        const used = (await store.endpointIndex(appId)).size;
        if (used >= deps.maxEndpoints) {
          throw new LpError("quota_exceeded", `The application has ${used} webhook endpoints, the most allowed; delete one first.`, { limit: deps.maxEndpoints, used });
        }
        store.seedDeliveryIndex(endpoint.id);
        await store.putEndpoint(endpoint);
      });
      const { endpoint: view, ...verification } = await verifyEndpoint(endpoint);
      return { ...view, secret, verification };
    },

    async list(appId: string, q: EndpointListQuery) {
      return paginate({
        index: await store.endpointIndex(appId),
        codec: deps.cursors,
        sort: "-created_at",
        cursor: q.cursor,
        perPage: q.per_page,
        filters: { application_id: appId },
        load: async (entries) => {
          const found = await Promise.all(entries.map((e) => skipUnreadable(store.fetchEndpoint(appId, e.id)).then((found) => found ?? undefined)));
          return found.filter((e) => e !== undefined).map(toEndpointView);
        },
      });
    },

    get: async (appId: string, id: string) => toEndpointView(await requireEndpoint(appId, id)),

    /** Applies a checked patch (`endpointUpdateSchema`'s output); a new url returns it to pending_verification. */
    async update(appId: string, id: string, body: EndpointUpdateInput, _change?: ChangeMark) {
      await requireEndpoint(appId, id);
      if (body.url !== undefined) await assertReachable(body.url);
      // Read again after the awaits, alone: the engine (in any process) may have moved the circuit meanwhile.
      const next = await deps.engine.exclusive(id, async () => {
        const current = await requireEndpoint(appId, id);
        const changed: EndpointRecord = { ...current, updated_at: now() };
        if (body.events) changed.events = body.events;
        if (body.concurrency_limit !== undefined) changed.concurrency_limit = body.concurrency_limit;
        if (body.url !== undefined && body.url !== current.url) {
          changed.url = body.url;
          changed.status = "pending_verification";
          changed.disabled_reason = null;
        }
        if (body.status) {
          changed.status = body.status;
          changed.disabled_reason = body.status === "disabled" ? "manual" : null;
        }
        await store.putEndpoint(changed);
        return changed;
      });
      deps.engine.setConcurrency(id, next.concurrency_limit);
      return toEndpointView(next);
    },

    async remove(appId: string, id: string, _change?: ChangeMark): Promise<void> {
      const endpoint = await requireEndpoint(appId, id);
      deps.engine.forget(id);
      await store.removeEndpoint(endpoint);
      await store.removeDeliveries(id);
    },

    verify: async (appId: string, id: string, _change?: ChangeMark) => verifyEndpoint(await requireEndpoint(appId, id)),

    async rotateSecret(appId: string, id: string, _change?: ChangeMark) {
      await requireEndpoint(appId, id);
      const secret = generateSecret();
      const expires = toTimestamp(new Date(clock.now().getTime() + SECRET_OVERLAP_MS));
      const next = await deps.engine.exclusive(id, async () => {
        const current = await requireEndpoint(appId, id);
        const changed: EndpointRecord = { ...current, secret, previous_secret: current.secret, previous_secret_expires_at: expires, updated_at: now() };
        await store.putEndpoint(changed);
        return changed;
      });
      return { ...toEndpointView(next), secret, previous_secret_expires_at: expires };
    },

    /** Schedules a signed `webhook.test` delivery; nothing is sent before this returns. */
    async test(appId: string, id: string, _change?: ChangeMark) {
      const endpoint = await requireEndpoint(appId, id);
      const at = now();
      const event: EventRecord = {
        id: toOrderedId("evt", clock, ids),
        type: TEST_EVENT_TYPE,
        timestamp: at,
        account_id: null,
        environment: endpoint.environment,
        data: { endpoint_id: endpoint.id, message: "A test event sent by the test operation." },
      };
      const delivery = toNewDelivery(event, endpoint, at, "test");
      await store.saveDelivery(delivery, false);
      await deps.engine.schedule({ id: delivery.id, endpoint_id: id }, clock.now().getTime());
      return toDeliveryView(delivery);
    },

    async deliveries(appId: string, id: string, q: DeliveryListQuery) {
      await requireEndpoint(appId, id);
      return paginate({
        index: await store.deliveryListing(id),
        codec: deps.cursors,
        sort: "-created_at",
        cursor: q.cursor,
        perPage: q.per_page,
        filters: { endpoint_id: id, status: q.status, event_type: q.event_type },
        filter: (e) => (!q.status || e.status === q.status) && (!q.event_type || e.event_type === q.event_type),
        load: async (entries) => {
          const records = await Promise.all(entries.map((e) => skipUnreadable(store.readDelivery(id, e.id))));
          return records.filter((r): r is DeliveryRecord => r !== null).map(toDeliveryView);
        },
      });
    },

    /** Marks a stored delivery pending for one manual attempt, made in the background. */
    async retry(appId: string, id: string, deliveryId: string, _change?: ChangeMark) {
      await requireEndpoint(appId, id);
      if (!isPrefixedId(deliveryId, "dlv")) throw notFound("delivery", deliveryId);
      // Under the delivery's lock, so an attempt finishing now cannot overwrite the change.
      const next = await deps.lock.withLock(`webhook-delivery:${deliveryId}`, async () => {
        const found = await store.readDelivery(id, deliveryId);
        if (!found) throw notFound("delivery", deliveryId);
        const at = now();
        const marked: DeliveryRecord = { ...found, status: "pending", next_trigger: "manual", next_attempt_at: at, skipped_reason: null, updated_at: at };
        await store.saveDelivery(marked, found.status === "pending");
        return marked;
      });
      await deps.engine.schedule({ id: next.id, endpoint_id: id }, clock.now().getTime());
      return toDeliveryView(next);
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
