import { generateSecret } from "@lp/webhooks";
import type { ChangeMark } from "../db/change-mark.js";
import type { Database, Tx } from "../db/database.js";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { LpError, notFound, validationError } from "../errors.js";
import { isPrefixedId, toOrderedId } from "../ids.js";
import type { CursorCodec, KeysetPosition } from "../lists/cursor.js";
import { toPagination, type KeysetPage } from "../lists/keyset-page.js";
import type { Page } from "../lists/list-query.js";
import type { AddressGuard } from "./address-guard.js";
import { TEST_EVENT_TYPE } from "./attempt-outcome.js";
import type { DeliveryClaims } from "./delivery-claims.js";
import type { DeliveryRepository } from "./delivery-repository.js";
import type { EndpointChanges, EndpointRepository } from "./endpoint-repository.js";
import type { EventRecorder } from "./event-recorder.js";
import { toDeliveryView, toEndpointView, type EndpointRecord, type EventRecord } from "./records.js";
import { closedCircuit, isWaiting } from "./retry-policy.js";
import type { DeliveryListQuery, EndpointCreateInput, EndpointListQuery, EndpointUpdateInput } from "./schemas.js";
import { runChallenge, type ChallengeDeps } from "./verification.js";

/** What the developer-plane operations need. */
export interface EndpointsDeps {
  database: Database;
  endpoints: EndpointRepository;
  deliveries: DeliveryRepository;
  claims: DeliveryClaims;
  recorder: EventRecorder;
  guard: AddressGuard;
  cursors: CursorCodec;
  clock: Clock;
  ids: IdSource;
  challenge: ChallengeDeps;
  /** Most endpoints one application may have (DESIGN §14; `lp serve --max-endpoints`). */
  maxEndpoints: number;
  /** Tells the delivery worker that deliveries may be claimed (once the change's transaction has ended). */
  wake: () => void;
}

/** Default of {@link EndpointsDeps.maxEndpoints}. */
export const DEFAULT_MAX_ENDPOINTS = 100;

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * The webhook endpoints of partner applications: the ten operations of the developer plane, each change one
 * transaction over the endpoint and delivery tables. Every lookup is by (application, endpoint), so another
 * application's endpoint is simply not found. A change that reads the endpoint first reads it under its
 * lock: the delivery worker (in any process) records circuits on the same row.
 */
export function createEndpointsService(deps: EndpointsDeps) {
  const { database, endpoints, deliveries, claims, clock, ids } = deps;
  const now = () => toTimestamp(clock.now());

  async function requireEndpoint(appId: string, id: string): Promise<EndpointRecord> {
    const endpoint = isPrefixedId(id, "we") ? await endpoints.get(database.db, id, appId) : null;
    if (!endpoint) throw notFound("webhook endpoint", id);
    return endpoint;
  }

  /** The endpoint under its lock in `tx`, still the application's. */
  async function lockEndpoint(tx: Tx, appId: string, id: string): Promise<EndpointRecord> {
    const endpoint = isPrefixedId(id, "we") ? await endpoints.lock(tx, id) : null;
    if (!endpoint || endpoint.application_id !== appId) throw notFound("webhook endpoint", id);
    return endpoint;
  }

  async function assertReachable(url: string): Promise<void> {
    const problem = await deps.guard.check(url);
    if (problem) throw validationError([{ path: "url", code: "blocked_address", message: problem }]);
  }

  /** A change of the endpoint read under its lock: `change` answers what to set. */
  function changeEndpoint(appId: string, id: string, changes: (current: EndpointRecord) => EndpointChanges, mark?: ChangeMark, also?: (tx: Tx, current: EndpointRecord) => Promise<void>) {
    return database.transaction(async (tx) => {
      const current = await lockEndpoint(tx, appId, id);
      const next = (await endpoints.update(tx, id, { ...changes(current), updated_at: now() }))!;
      await also?.(tx, next);
      await mark?.(tx);
      return next;
    });
  }

  /** Runs the challenge (no transaction held meanwhile) and applies its outcome: only a success makes the endpoint active. */
  async function verifyEndpoint(endpoint: EndpointRecord, mark?: ChangeMark) {
    const result = await runChallenge(deps.challenge, endpoint);
    const ok = result.outcome === "succeeded";
    const next = await changeEndpoint(
      endpoint.application_id,
      endpoint.id,
      () => (ok ? { status: "active", disabled_reason: null, circuit: closedCircuit(), last_verification: result } : { last_verification: result }),
      mark,
      // What the endpoint held while paused or unverified is due now.
      async (tx) => void (ok && (await claims.releaseHeld(tx, endpoint.id, now()))),
    );
    if (ok) deps.wake();
    const { at: _at, error, ...rest } = result;
    return { ...rest, ...(error ? { error } : {}), endpoint: toEndpointView(next) };
  }

  /** A keyset page: the cursor decoded against the listing's binding, the next one made from where the page ends. */
  async function keysetPage<R, T>(
    cursor: string | undefined,
    filters: Record<string, unknown>,
    read: (after: KeysetPosition | undefined) => Promise<KeysetPage<R>>,
    view: (row: R) => T,
  ): Promise<Page<T>> {
    const binding = { sort: "-created_at", filters };
    const after = cursor ? deps.cursors.decode(cursor, binding) : undefined;
    if (after && typeof after.value !== "string") throw new LpError("invalid_cursor", "The cursor is not valid for this listing: malformed. Start again without a cursor.");
    const page = await read(after);
    return { data: page.items.map(view), pagination: toPagination(page, deps.cursors, binding) };
  }

  return {
    /** Creates an endpoint from a checked body (`endpointCreateSchema`'s output) and runs its challenge. */
    async create(appId: string, body: EndpointCreateInput, mark?: ChangeMark) {
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
      // Counted and stored in one transaction, under the application's row lock on PostgreSQL: parallel creates cannot overshoot the cap.
      await database.transaction(async (tx) => {
        const used = await endpoints.countLocked(tx, appId);
        if (used >= deps.maxEndpoints) {
          throw new LpError("quota_exceeded", `The application has ${used} webhook endpoints, the most allowed; delete one first.`, { limit: deps.maxEndpoints, used });
        }
        await endpoints.insert(tx, endpoint);
        await mark?.(tx);
      });
      const { endpoint: view, ...verification } = await verifyEndpoint(endpoint);
      return { ...view, secret, verification };
    },

    list: (appId: string, q: EndpointListQuery) =>
      keysetPage(q.cursor, { application_id: appId }, (after) => endpoints.list(database.db, appId, { after, limit: q.per_page }), toEndpointView),

    get: async (appId: string, id: string) => toEndpointView(await requireEndpoint(appId, id)),

    /** Applies a checked patch (`endpointUpdateSchema`'s output); a new url returns it to pending_verification. */
    async update(appId: string, id: string, body: EndpointUpdateInput, mark?: ChangeMark) {
      await requireEndpoint(appId, id);
      if (body.url !== undefined) await assertReachable(body.url);
      const next = await changeEndpoint(
        appId,
        id,
        (current) => {
          const changed: EndpointChanges = {};
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
          return changed;
        },
        mark,
      );
      // A higher concurrency_limit lets more of what is due go now.
      if (body.concurrency_limit !== undefined) deps.wake();
      return toEndpointView(next);
    },

    /** Deletes the endpoint with its deliveries and their attempts (the foreign keys cascade). */
    async remove(appId: string, id: string, mark?: ChangeMark): Promise<void> {
      if (!isPrefixedId(id, "we")) throw notFound("webhook endpoint", id);
      await database.transaction(async (tx) => {
        if (!(await endpoints.remove(tx, id, appId))) throw notFound("webhook endpoint", id);
        await mark?.(tx);
      });
    },

    verify: async (appId: string, id: string, mark?: ChangeMark) => verifyEndpoint(await requireEndpoint(appId, id), mark),

    async rotateSecret(appId: string, id: string, mark?: ChangeMark) {
      await requireEndpoint(appId, id);
      const secret = generateSecret();
      const expires = toTimestamp(new Date(clock.now().getTime() + SECRET_OVERLAP_MS));
      const next = await changeEndpoint(appId, id, (current) => ({ secret, previous_secret: current.secret, previous_secret_expires_at: expires }), mark);
      return { ...toEndpointView(next), secret, previous_secret_expires_at: expires };
    },

    /** Schedules a signed `webhook.test` delivery; nothing is sent before this returns. */
    async test(appId: string, id: string, mark?: ChangeMark) {
      const at = now();
      const delivery = await database.transaction(async (tx) => {
        const endpoint = await lockEndpoint(tx, appId, id);
        const event: EventRecord = {
          id: toOrderedId("evt", clock, ids),
          type: TEST_EVENT_TYPE,
          timestamp: at,
          account_id: null,
          environment: endpoint.environment,
          data: { endpoint_id: endpoint.id, message: "A test event sent by the test operation." },
        };
        const [made] = await deps.recorder.recordFor(tx, event, endpoint);
        await mark?.(tx);
        return made;
      });
      deps.wake();
      return toDeliveryView(delivery);
    },

    async deliveries(appId: string, id: string, q: DeliveryListQuery) {
      await requireEndpoint(appId, id);
      return keysetPage(
        q.cursor,
        { endpoint_id: id, status: q.status, event_type: q.event_type },
        (after) => deliveries.list(database.db, id, { status: q.status, event_type: q.event_type, after, limit: q.per_page }),
        toDeliveryView,
      );
    },

    /** Marks a stored delivery pending for one manual attempt, made in the background. */
    async retry(appId: string, id: string, deliveryId: string, mark?: ChangeMark) {
      await requireEndpoint(appId, id);
      if (!isPrefixedId(deliveryId, "dlv")) throw notFound("delivery", deliveryId);
      const delivery = await database.transaction(async (tx) => {
        const endpoint = await lockEndpoint(tx, appId, id);
        const at = now();
        // An open circuit lets nothing out before its probe: the retry is due then.
        const marked = await claims.markForRetry(tx, id, deliveryId, at, isWaiting(endpoint.circuit, at) ? endpoint.circuit.opens_until! : at);
        if (!marked) throw notFound("delivery", deliveryId);
        await mark?.(tx);
        return marked.delivery;
      });
      deps.wake();
      return toDeliveryView(delivery);
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
