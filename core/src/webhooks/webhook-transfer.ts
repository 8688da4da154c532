import type { Database, Queries } from "../db/database.js";
import { isForeignKeyViolation } from "../db/errors.js";
import { LpError } from "../errors.js";
import { createDeliveryRepository } from "./delivery-repository.js";
import { createEndpointRepository } from "./endpoint-repository.js";
import type { DeliveryRecord, EndpointRecord } from "./records.js";

/**
 * The webhook tables in `GET /_admin/export`, `POST /_admin/import` and `POST /_admin/reset`: endpoints and
 * deliveries (with their attempts and the events they carry) under the keys and in the shape the key-value
 * store gave them (`webhooks:endpoints:<application>:<id>`, `webhooks:deliveries:<endpoint>:<id>`), so an
 * export's document is the same whichever store keeps what. The events no delivery carries (kept for replay)
 * are not exported, as the in-memory log of replay never was.
 */
const ENDPOINT = /^webhooks:endpoints:[^:]+:[^:]+$/;
const DELIVERY = /^webhooks:deliveries:[^:]+:[^:]+$/;
// What the key-value engine kept beside them (pending markers, the outbox, the endpoints' revision): nothing
// the tables need, so an import of an older export leaves it out.
const ENGINE_STATE = /^webhooks:(pending:|outbox:|endpoints-rev$)/;
const PAGE = 500;

/** Whether an export's record `key` belongs to the webhook tables (or to the key-value engine's state, dropped). */
export const isWebhookRecordKey = (key: string): boolean => ENDPOINT.test(key) || DELIVERY.test(key) || ENGINE_STATE.test(key);

/** Every endpoint and delivery, by its export key. */
export async function exportWebhookRecords(database: Database): Promise<Record<string, unknown>> {
  const endpoints = createEndpointRepository(database.dialect);
  const deliveries = createDeliveryRepository(database.dialect);
  const records: Record<string, unknown> = {};
  const apps = await database.db.selectFrom("webhook_endpoints").select("application_id").distinct().orderBy("application_id").execute();
  for (const { application_id } of apps) {
    for (let page = await endpoints.list(database.db, application_id, { limit: PAGE }); ; ) {
      for (const endpoint of page.items) {
        records[`webhooks:endpoints:${application_id}:${endpoint.id}`] = endpoint;
        for (let list = await deliveries.list(database.db, endpoint.id, { limit: PAGE }); ; ) {
          for (const d of list.items) records[`webhooks:deliveries:${endpoint.id}:${d.id}`] = d;
          const last = list.items.at(-1);
          if (!list.hasMore || !last) break;
          list = await deliveries.list(database.db, endpoint.id, { limit: PAGE, after: { value: last.created_at, id: last.id } });
        }
      }
      const last = page.items.at(-1);
      if (!page.hasMore || !last) break;
      page = await endpoints.list(database.db, application_id, { limit: PAGE, after: { value: last.created_at, id: last.id } });
    }
  }
  return records;
}

/** Empties the webhook tables, in `q`: endpoints (and by the foreign keys their subscriptions, deliveries and attempts), then events. */
export async function clearWebhookTables(q: Queries): Promise<void> {
  await q.deleteFrom("webhook_endpoints").execute();
  await q.deleteFrom("events").execute();
}

/**
 * Replaces the webhook tables with the records of a checked import (`records` may hold others: they are left
 * alone), in one transaction; answers how many it wrote. A delivery's event is stored from its payload; a
 * pending delivery is due at its `next_attempt_at` (held when it has none), claimed by no one. An endpoint of
 * an application the database lacks refuses the whole import, and nothing changes.
 */
export async function replaceWebhookRecords(database: Database, records: Record<string, unknown>): Promise<number> {
  const endpoints = createEndpointRepository(database.dialect);
  const deliveries = createDeliveryRepository(database.dialect);
  const madeEndpoints: EndpointRecord[] = [];
  const madeDeliveries: DeliveryRecord[] = [];
  for (const [key, value] of Object.entries(records)) {
    if (ENDPOINT.test(key)) madeEndpoints.push(value as EndpointRecord);
    else if (DELIVERY.test(key)) madeDeliveries.push(value as DeliveryRecord);
  }
  const known = new Set(madeEndpoints.map((e) => e.id));
  // A delivery whose endpoint the document lacks went with it (a delete removes an endpoint's history).
  const kept = madeDeliveries.filter((d) => known.has(d.endpoint_id)).sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  try {
    return await database.transaction(async (tx) => {
      await clearWebhookTables(tx);
      for (const endpoint of madeEndpoints) await endpoints.insert(tx, endpoint);
      for (const delivery of kept) await deliveries.importDelivery(tx, delivery);
      return madeEndpoints.length + kept.length;
    });
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    throw new LpError("validation_error", "The import was refused, nothing changed: a webhook endpoint names an application the document does not hold.", {
      issues: [{ path: "records", code: "missing_application", message: "names an application the document does not hold" }],
    });
  }
}
