import { sql } from "kysely";
import type { Database, Queries } from "../db/database.js";
import { defaultTheme } from "../render/theme.js";
import type { PageRecord } from "./page-view.js";
import type { StoredJob } from "./page-repository.js";

/** A fixed time, `minute` minutes after 10:00 on 1 March 2026 (seconds for finer steps). */
export const at = (minute: number, second = 0) => `2026-03-01T${String(10 + Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}:${String(second).padStart(2, "0")}.000Z`;

/** The `n`th id of a kind, shaped as the service's UUIDs (`kind` 1 to 9 keeps kinds apart). */
export const uuidOf = (kind: number, n: number) => `0000000${kind}-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** An account row, as the account plane writes it. */
export async function seedAccount(db: Queries, accountId: string): Promise<void> {
  await db
    .insertInto("accounts")
    .values({ account_id: accountId, environment: "production", currency: "EUR", page_quota: 100, product_quota: 1000, media_quota_bytes: 1 << 20, created_at: at(0), updated_at: at(0) })
    .execute();
}

/** A product row of the account. */
export async function seedProduct(db: Queries, accountId: string, productId: string, title = "Oak Desk Lamp"): Promise<void> {
  await db
    .insertInto("products")
    .values({ id: productId, account_id: accountId, title, description: null, price: 49.5, original_price: null, delivery_price: 4.9, product_type: "physical", checkout_fields: null, search_text: title.toLowerCase(), media_bytes: 0, created_at: at(0), updated_at: at(0), deleted_at: null })
    .execute();
}

/** A generation job as the service writes it at creation: processing, queued. */
export function toJob(accountId: string, jobId: string, productId: string, overrides: Partial<StoredJob> = {}): StoredJob {
  return {
    job_id: jobId,
    account_id: accountId,
    status: "processing",
    step: "analyzing_product",
    step_detail: "Queued",
    page_id: null,
    warnings: [],
    error: null,
    created_at: at(1),
    updated_at: at(1),
    completed_at: null,
    request: { product_id: productId, language: "en", marketing_angle: null, design: { primary_color: "#123456" }, checkout_fields: null, simulate: null },
    step_times: {},
    ...overrides,
  };
}

/** A generated page of the product, made by job `jobId`. */
export function toPage(accountId: string, id: string, jobId: string, productId: string, overrides: Partial<PageRecord> = {}): PageRecord {
  const title = overrides.product?.title ?? "Oak Desk Lamp";
  return {
    id,
    account_id: accountId,
    slug: "oak-desk-lamp",
    status: "draft",
    language: "en",
    product: { id: productId, title, description: "Solid oak, warm light.", price: 49.5, original_price: null, delivery_price: 4.9, product_type: "physical", images: [{ url: "https://img.example/lamp.png", media_type: "image/png" }] },
    content: {
      language: "en",
      headline: `${title}: light for late work`,
      subheadline: "Solid oak, warm light.",
      sections: [{ type: "hero", id: "hero", headline: title, subheadline: "Warm light", cta_label: "Order now", image_url: null }],
    },
    global_theme: defaultTheme("EUR"),
    seo_config: { title },
    checkout_fields: [{ field_key: "full_name", label: "Full name", field_type: "text", is_required: true, options: [] }],
    hero_image_url: `/media/pages/${id}/hero.png`,
    deployed_url: null,
    job_id: jobId,
    created_at: at(2),
    updated_at: at(2),
    ...overrides,
  };
}

/**
 * Resolves once some transaction of the database waits on a row lock another holds (PostgreSQL; on SQLite,
 * whose transactions run one at a time, at once). Lets a test hold its first transaction open until the
 * second is really waiting on it, instead of hoping the two overlap.
 */
export async function untilATransactionWaits(database: Database): Promise<void> {
  if (database.dialect !== "postgres") return;
  for (let probe = 0; probe < 20_000; probe++) {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_locks where not granted`.execute(database.db);
    if (Number(rows[0]?.n) > 0) return;
  }
  throw new Error("no transaction came to wait on another");
}
