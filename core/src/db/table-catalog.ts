import type { Tables } from "./tables.js";

/**
 * What a column holds, as a whole-database copy (an export, an import, `lp doctor --fix`) reads and writes
 * it: text, an integer, a number with a fraction, or a JSON document (text on SQLite, `json` on PostgreSQL);
 * `?` when it may be null.
 */
export type ColumnKind = "text" | "text?" | "int" | "int?" | "real" | "real?" | "json" | "json?";

/**
 * The tables a whole-database copy moves: every table of the schema but `media`, whose bytes go through
 * the media blobs (files beside an SQLite database, the table on PostgreSQL), `product_totals`, which the
 * database's triggers keep from the products as they are written, and the short-lived state of the running
 * service ({@link SHORT_LIVED_TABLES}), which is not its data.
 */
export type CatalogTable = Exclude<keyof Tables, "media" | "product_totals" | ShortLivedTable>;

/**
 * Tables of short-lived state (migration 0008): rate-limit windows and the dashboard's login tokens and
 * sessions. A copy leaves them out, and a reset or an import keeps them, so resetting the data from the
 * dashboard does not end its own session.
 */
export const SHORT_LIVED_TABLES = ["rate_windows", "dashboard_keys"] as const;
/** A table of {@link SHORT_LIVED_TABLES}. */
export type ShortLivedTable = (typeof SHORT_LIVED_TABLES)[number];

/** The tables of the schema a whole-database copy leaves out ({@link CatalogTable}). */
export const UNCOPIED_TABLES: readonly string[] = ["media", "product_totals", ...SHORT_LIVED_TABLES];

/** A table's columns by name, each with its kind, and its primary key (what orders its rows). */
export interface TableSpec<T extends CatalogTable> {
  columns: { [C in keyof Tables[T]]-?: ColumnKind };
  key: readonly (keyof Tables[T] & string)[];
}

// Every column of every table's row type must be named here (a missing one fails the type check), and
// `table-catalog.test.ts` checks these against the tables the migrations make.
const SPECS: { [T in CatalogTable]: TableSpec<T> } = {
  settings: { key: ["name"], columns: { name: "text", value: "text", created_at: "text" } },
  accounts: {
    key: ["account_id"],
    columns: { account_id: "text", environment: "text", currency: "text", page_quota: "int", product_quota: "int", media_quota_bytes: "int", created_at: "text", updated_at: "text" },
  },
  tokens: { key: ["token_hash"], columns: { token_hash: "text", account_id: "text", scopes: "json", expires_at: "text?", created_at: "text" } },
  applications: { key: ["application_id"], columns: { application_id: "text", name: "text", secret_hash: "text", created_at: "text", updated_at: "text" } },
  application_accounts: { key: ["application_id", "account_id"], columns: { application_id: "text", account_id: "text", position: "int" } },
  products: {
    key: ["id"],
    columns: {
      id: "text",
      account_id: "text",
      title: "text",
      description: "text?",
      price: "real",
      original_price: "real?",
      delivery_price: "real?",
      product_type: "text",
      checkout_fields: "json?",
      search_text: "text",
      media_bytes: "int",
      created_at: "text",
      updated_at: "text",
      deleted_at: "text?",
    },
  },
  product_images: {
    key: ["id"],
    columns: { id: "text", product_id: "text", url: "text", media_type: "text", display_order: "int", media_path: "text?", bytes: "int?", created_at: "text" },
  },
  page_jobs: {
    key: ["job_id"],
    columns: {
      job_id: "text",
      account_id: "text",
      status: "text",
      step: "text",
      step_detail: "text",
      page_id: "text?",
      request: "json",
      warnings: "json",
      step_times: "json",
      error_code: "text?",
      error_message: "text?",
      created_at: "text",
      updated_at: "text",
      completed_at: "text?",
      due_at: "text?",
      lease_owner: "text?",
      lease_expires_at: "text?",
    },
  },
  pages: {
    key: ["id"],
    columns: {
      id: "text",
      account_id: "text",
      product_id: "text",
      slug: "text",
      status: "text",
      language: "text",
      hero_image_url: "text?",
      deployed_url: "text?",
      job_id: "text",
      search_text: "text",
      product: "json",
      content: "json",
      global_theme: "json",
      seo_config: "json",
      checkout_fields: "json",
      created_at: "text",
      updated_at: "text",
    },
  },
  deployments: {
    key: ["id"],
    columns: {
      id: "text",
      page_id: "text",
      account_id: "text",
      status: "text",
      deploy_step: "text?",
      error_code: "text?",
      error_message: "text?",
      deployed_url: "text?",
      deployed_at: "text?",
      simulate: "text?",
      step_times: "json",
      created_at: "text",
      updated_at: "text",
      due_at: "text?",
      lease_owner: "text?",
      lease_expires_at: "text?",
    },
  },
  site_files: { key: ["deployment_id"], columns: { deployment_id: "text", html: "text", page: "json", created_at: "text" } },
  sites: { key: ["account_id", "slug"], columns: { account_id: "text", slug: "text", page_id: "text", deployment_id: "text", activated_at: "text", url: "text" } },
  checkouts: { key: ["id"], columns: { id: "text", account_id: "text", page_id: "text", deployment_id: "text", values: "json", created_at: "text" } },
  webhook_endpoints: {
    key: ["id"],
    columns: {
      id: "text",
      application_id: "text",
      url: "text",
      environment: "text",
      concurrency_limit: "int",
      status: "text",
      disabled_reason: "text?",
      secret: "text",
      previous_secret: "text?",
      previous_secret_expires_at: "text?",
      circuit_state: "text",
      circuit_consecutive_failures: "int",
      circuit_reopen_count: "int",
      circuit_opens_until: "text?",
      last_verification: "json?",
      created_at: "text",
      updated_at: "text",
    },
  },
  webhook_endpoint_events: { key: ["endpoint_id", "event_type"], columns: { endpoint_id: "text", event_type: "text", position: "int" } },
  events: { key: ["id"], columns: { id: "text", type: "text", account_id: "text?", environment: "text", data: "json", created_at: "text" } },
  webhook_deliveries: {
    key: ["id"],
    columns: {
      id: "text",
      endpoint_id: "text",
      event_id: "text",
      application_id: "text",
      event_type: "text",
      status: "text",
      scheduled_attempts: "int",
      auto_retry: "int",
      next_trigger: "text",
      skipped_reason: "text?",
      created_at: "text",
      updated_at: "text",
      due_at: "text?",
      lease_owner: "text?",
      lease_expires_at: "text?",
    },
  },
  delivery_attempts: {
    key: ["delivery_id", "number"],
    columns: {
      delivery_id: "text",
      number: "int",
      trigger: "text",
      started_at: "text",
      status_code: "int?",
      latency_ms: "int",
      outcome: "text",
      error: "text?",
      response_body: "text?",
      truncated: "int",
    },
  },
  idempotency_keys: {
    key: ["account_id", "key"],
    columns: {
      account_id: "text",
      key: "text",
      fingerprint: "text",
      response_status: "int?",
      response_headers: "json?",
      response_body: "text?",
      claimed_by: "text?",
      claim_expires_at: "text?",
      changed_at: "text?",
      created_at: "text",
      expires_at: "text",
    },
  },
};

/**
 * The tables in the order their rows can be written with every foreign key on: a table after every table
 * it references. Emptying goes the other way.
 */
export const TABLE_ORDER: readonly CatalogTable[] = [
  "settings",
  "accounts",
  "tokens",
  "applications",
  "application_accounts",
  "products",
  "product_images",
  "page_jobs",
  "pages",
  "deployments",
  "site_files",
  "sites",
  "checkouts",
  "webhook_endpoints",
  "webhook_endpoint_events",
  "events",
  "webhook_deliveries",
  "delivery_attempts",
  "idempotency_keys",
];

/** The spec of `table`. */
export function tableSpec<T extends CatalogTable>(table: T): TableSpec<T> {
  return SPECS[table];
}

/** A table's column names, in the order the spec lists them. */
export function columnsOf(table: CatalogTable): string[] {
  return Object.keys(SPECS[table].columns);
}

/** A row of any catalog table, as the query layer reads and writes it (JSON columns as their text). */
export type AnyRow = Record<string, string | number | null>;

/** Rows by table: what a whole-database copy writes. */
export type TableRows = { [T in CatalogTable]?: AnyRow[] };

/**
 * Compares two rows of `table` by its primary key, text by UTF-16 code units: the same order on both
 * engines (PostgreSQL's default collation orders some text columns otherwise), so a copy is the same
 * document whichever engine it was read from.
 */
export function compareByKey(table: CatalogTable): (a: AnyRow, b: AnyRow) => number {
  const key = SPECS[table].key as readonly string[];
  return (a, b) => {
    for (const column of key) {
      const x = a[column];
      const y = b[column];
      if (x === y) continue;
      if (x === null || x === undefined) return -1;
      if (y === null || y === undefined) return 1;
      return x < y ? -1 : 1;
    }
    return 0;
  };
}
