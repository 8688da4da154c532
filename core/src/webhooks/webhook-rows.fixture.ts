import type { Queries } from "../db/database.js";
import type { EndpointRecord, EventRecord } from "./records.js";
import { closedCircuit } from "./retry-policy.js";

/** `2026-03-01T10:mm:ss.000Z`: fixed times for the webhook repository suites. */
export const at = (minute: number, second = 0) => `2026-03-01T10:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}.000Z`;

/** Stores accounts and an application installed on them (the rows webhook endpoints and fan-outs refer to). */
export async function seedApplication(db: Queries, applicationId: string, accountIds: readonly string[]): Promise<void> {
  for (const account_id of accountIds) {
    const exists = await db.selectFrom("accounts").select("account_id").where("account_id", "=", account_id).executeTakeFirst();
    if (!exists) {
      await db
        .insertInto("accounts")
        .values({ account_id, environment: "production", currency: "USD", page_quota: 100, product_quota: 1000, media_quota_bytes: 1 << 20, created_at: at(0), updated_at: at(0) })
        .execute();
    }
  }
  await db.insertInto("applications").values({ application_id: applicationId, name: applicationId, secret_hash: "h", created_at: at(0), updated_at: at(0) }).execute();
  if (accountIds.length > 0) {
    await db
      .insertInto("application_accounts")
      .values(accountIds.map((account_id, position) => ({ application_id: applicationId, account_id, position })))
      .execute();
  }
}

/** An active endpoint of `app_1` on product events, with what the test changes. */
export function toTestEndpoint(id: string, changes: Partial<EndpointRecord> = {}): EndpointRecord {
  return {
    id,
    application_id: "app_1",
    url: `https://receiver.test/${id}`,
    events: ["product.created", "product.updated"],
    environment: "production",
    concurrency_limit: 4,
    status: "active",
    disabled_reason: null,
    secret: `whsec_${id}`,
    previous_secret: null,
    previous_secret_expires_at: null,
    circuit: closedCircuit(),
    last_verification: null,
    created_at: at(0),
    updated_at: at(0),
    ...changes,
  };
}

/** A `product.created` event on `acct_1`, with what the test changes. */
export function toTestEvent(id: string, changes: Partial<EventRecord> = {}): EventRecord {
  return { id, type: "product.created", timestamp: at(1), account_id: "acct_1", environment: "production", data: { id: `prod_${id}`, title: "A lamp" }, ...changes };
}
