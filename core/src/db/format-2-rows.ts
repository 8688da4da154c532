import { DEFAULT_MEDIA_QUOTA_BYTES, DEFAULT_PRODUCT_QUOTA } from "../accounts/schemas.js";
import { toSearchText } from "../products/product-repository.js";
import { toNewDelivery, type DeliveryRecord, type EndpointRecord, type EventRecord } from "../webhooks/records.js";
import { toJson } from "./column-types.js";
import { recordProblem, toKeyOf, type Format2Kind, type Format2Record } from "./format-2-records.js";
import type { AnyRow, CatalogTable, TableRows } from "./table-catalog.js";

/** A record the tables do not take, and why (it stays in the format-2 file or document it came from). */
export interface LeftOut {
  key: string;
  reason: string;
}

/** The rows of format 3 made from a set of format-2 records. */
export interface Format2Rows {
  rows: TableRows;
  /** Records left out: unknown keys, records that fail their kind's schema, records naming what is not there. */
  left: LeftOut[];
  /** Keys of index, journal and meta records the tables do not need (counted, not kept). */
  notNeeded: number;
  /** Whether a media key is of a page whose deletion was under way (its media is left out with it). */
  isLeftMedia(key: string): boolean;
}

/** The setting names the format-2 meta keys become (`settings.name`). */
export const SETTING_NAMES = { cursorKey: "cursor_key", builderKey: "builder_key", adminKey: "admin_key", devCredentials: "dev_credentials" } as const;

type Found<K extends Format2Kind> = { key: string; parts: string[]; record: Format2Record<K> };
type ByKind = { [K in Format2Kind]: Found<K>[] };

/** What each kind of record is called where a refusal names it. */
export const KIND_NAMES: Record<Format2Kind, string> = {
  account: "account",
  token: "token",
  app: "application",
  product: "product",
  page: "page",
  job: "job",
  deployment: "deployment",
  checkout: "checkout",
  idempotency: "idempotency",
  site: "site",
  siteFiles: "site files",
  deletion: "deletion journal",
  endpoint: "webhook endpoint",
  delivery: "delivery",
  outbox: "webhook outbox",
  cursorKey: "cursor key",
  builderKey: "builder key",
  adminKey: "admin key",
  devCredentials: "dev credentials",
};

/** Sorts every record by its kind, leaving out unknown keys and records that fail their kind's schema. */
function sortRecords(records: Iterable<readonly [string, unknown]>, left: LeftOut[]): { byKind: ByKind; notNeeded: number } {
  const byKind = Object.fromEntries(Object.keys(KIND_NAMES).map((kind) => [kind, []])) as unknown as ByKind;
  let notNeeded = 0;
  for (const [key, value] of records) {
    const of = toKeyOf(key);
    if (of.kind === "not_needed") {
      notNeeded++;
      continue;
    }
    if (of.kind === "unknown") {
      left.push({ key, reason: "no store keeps records under this key" });
      continue;
    }
    const problem = recordProblem(of.kind, value);
    if (problem) left.push({ key, reason: `not a valid ${KIND_NAMES[of.kind]} record (${problem})` });
    else (byKind[of.kind] as Found<Format2Kind>[]).push({ key, parts: of.parts, record: value as never });
  }
  return { byKind, notNeeded };
}

/**
 * Makes the rows of format 3 from the records of format 2, checking in memory what the tables' foreign
 * keys and unique indexes would refuse, so the write that follows is refused for nothing and a record that
 * names what is not there (a token of a deleted account, a delivery of a removed endpoint) is left out and
 * named instead of failing the whole import.
 *
 * What each record becomes: an account, token, application (with its accounts, in order), product (with
 * its images), job, page, deployment, site, site's files, checkout, Idempotency-Key record, webhook
 * endpoint (with its subscriptions) and delivery (with its attempts and its event) their rows. Work in
 * flight is due at once: a job still processing and a deployment still deploying get a due time (their
 * creation) and no lease, for the workers to take over, as the journal's replay did; a pending delivery is
 * due at its `next_attempt_at`. An event of the webhook outbox (not fanned out yet) is stored with a
 * delivery to each endpoint it goes to that has none of it, as the fan-out makes them. A page whose
 * deletion was under way (its journal entry) is left out with its deployments, site and media: the
 * deletion is finished. A page whose job record is gone gets a completed job made from the page (a page
 * names its job in format 3). The meta keys of the service become settings ({@link SETTING_NAMES}),
 * stamped `now`.
 */
export function toFormat3Rows(records: Iterable<readonly [string, unknown]>, options: { now: string }): Format2Rows {
  const left: LeftOut[] = [];
  const { byKind, notNeeded } = sortRecords(records, left);
  const rows: TableRows = {};
  const add = (table: CatalogTable, row: AnyRow) => (rows[table] ??= []).push(row);
  const leave = (key: string, reason: string) => left.push({ key, reason });
  // Primary keys already written, by table: a second record of one (its key and its id disagreeing) is left out.
  const written = new Map<CatalogTable, Set<string>>();
  const once = (table: CatalogTable, id: string, key: string): boolean => {
    const seen = written.get(table) ?? written.set(table, new Set()).get(table)!;
    if (seen.has(id)) return leave(key, `a second record of ${table} ${id}`), false;
    seen.add(id);
    return true;
  };

  const accounts = new Set<string>();
  for (const { key, record: a } of byKind.account) {
    if (!once("accounts", a.account_id, key)) continue;
    accounts.add(a.account_id);
    add("accounts", {
      account_id: a.account_id,
      environment: a.environment,
      currency: a.currency,
      page_quota: a.page_quota,
      product_quota: a.product_quota ?? DEFAULT_PRODUCT_QUOTA,
      media_quota_bytes: a.media_quota_bytes ?? DEFAULT_MEDIA_QUOTA_BYTES,
      created_at: a.created_at,
      updated_at: a.created_at,
    });
  }
  const needAccount = (key: string, accountId: string) => accounts.has(accountId) || (leave(key, `names account ${accountId}, which is not there`), false);

  for (const { key, parts, record: t } of byKind.token) {
    if (needAccount(key, t.account_id)) add("tokens", { token_hash: parts[0]!, account_id: t.account_id, scopes: toJson(t.scopes), expires_at: t.expires_at, created_at: t.created_at });
  }

  const applications = new Set<string>();
  for (const { key, record: app } of byKind.app) {
    if (!once("applications", app.application_id, key)) continue;
    applications.add(app.application_id);
    add("applications", { application_id: app.application_id, name: app.name, secret_hash: app.secret_hash, created_at: app.created_at, updated_at: app.created_at });
    // The accounts it acts for, duplicates dropped (the first place kept); one that is gone is left out of the list.
    const linked = [...new Set(app.account_ids)];
    for (const accountId of linked.filter((a) => !accounts.has(a))) leave(`${key} (account ${accountId})`, `the application acts for account ${accountId}, which is not there`);
    linked.filter((a) => accounts.has(a)).forEach((account_id, position) => add("application_accounts", { application_id: app.application_id, account_id, position }));
  }

  const products = new Set<string>();
  for (const { key, record: p } of byKind.product) {
    if (!needAccount(key, p.account_id) || !once("products", p.id, key) || !p.images.every((image) => once("product_images", image.id, `${key} (image ${image.id})`))) continue;
    products.add(p.id);
    add("products", {
      id: p.id,
      account_id: p.account_id,
      title: p.title,
      description: p.description,
      price: p.price,
      original_price: p.original_price,
      delivery_price: p.delivery_price,
      product_type: p.product_type,
      checkout_fields: p.checkout_fields == null ? null : toJson(p.checkout_fields),
      search_text: toSearchText(p.title, p.description),
      media_bytes: p.images.reduce((sum, image) => sum + (image.bytes ?? 0), 0),
      created_at: p.created_at,
      updated_at: p.updated_at,
      deleted_at: p.deleted_at,
    });
    for (const image of p.images) {
      add("product_images", {
        id: image.id,
        product_id: p.id,
        url: image.url,
        media_type: image.media_type,
        display_order: image.display_order,
        media_path: image.media_path,
        bytes: image.bytes ?? null,
        created_at: image.created_at,
      });
    }
  }

  const jobs = new Map<string, AnyRow>();
  for (const { key, record: j } of byKind.job) {
    if (!needAccount(key, j.account_id) || !once("page_jobs", j.job_id, key)) continue;
    const row: AnyRow = {
      job_id: j.job_id,
      account_id: j.account_id,
      status: j.status,
      step: j.step,
      step_detail: j.step_detail,
      page_id: j.page_id,
      request: toJson(j.request),
      warnings: toJson(j.warnings),
      step_times: toJson(j.step_times ?? {}),
      error_code: j.error?.code ?? null,
      error_message: j.error?.message ?? null,
      created_at: j.created_at,
      updated_at: j.updated_at,
      completed_at: j.completed_at,
      due_at: j.status === "processing" ? j.created_at : null,
      lease_owner: null,
      lease_expires_at: null,
    };
    jobs.set(j.job_id, row);
    add("page_jobs", row);
  }

  const deleting = new Set(byKind.deletion.map(({ parts }) => parts[1]!));
  const pages = new Map<string, Format2Record<"page">>();
  const slugs = new Set<string>();
  const pageOfJob = new Set<string>();
  for (const { key, record: p } of byKind.page) {
    if (deleting.has(p.id)) {
      leave(key, "its deletion was under way: it is finished by leaving the page out");
      continue;
    }
    if (!needAccount(key, p.account_id) || !once("pages", p.id, key)) continue;
    if (!products.has(p.product.id)) {
      leave(key, `names product ${p.product.id}, which is not there`);
      continue;
    }
    const slug = `${p.account_id}\n${p.slug}`;
    if (slugs.has(slug) || pageOfJob.has(p.job_id)) {
      leave(key, slugs.has(slug) ? `another page of the account has the slug ${p.slug}` : `another page was made by job ${p.job_id}`);
      continue;
    }
    if (!jobs.has(p.job_id)) {
      const job: AnyRow = {
        job_id: p.job_id,
        account_id: p.account_id,
        status: "completed",
        step: "done",
        step_detail: "The page is ready",
        page_id: p.id,
        request: toJson({ product_id: p.product.id, language: p.language }),
        warnings: "[]",
        step_times: "{}",
        error_code: null,
        error_message: null,
        created_at: p.created_at,
        updated_at: p.created_at,
        completed_at: p.created_at,
        due_at: null,
        lease_owner: null,
        lease_expires_at: null,
      };
      jobs.set(p.job_id, job);
      add("page_jobs", job);
    }
    slugs.add(slug);
    pageOfJob.add(p.job_id);
    pages.set(p.id, p);
    add("pages", {
      id: p.id,
      account_id: p.account_id,
      product_id: p.product.id,
      slug: p.slug,
      status: p.status,
      language: p.language,
      hero_image_url: p.hero_image_url,
      deployed_url: p.deployed_url,
      job_id: p.job_id,
      search_text: `${p.slug}\n${p.product.title}`.toLowerCase(),
      product: toJson(p.product),
      content: toJson(p.content),
      global_theme: toJson(p.global_theme),
      seo_config: toJson(p.seo_config),
      checkout_fields: toJson(p.checkout_fields),
      created_at: p.created_at,
      updated_at: p.updated_at,
    });
  }

  const deployments = new Map<string, Format2Record<"deployment">>();
  const inFlight = new Set<string>();
  for (const { key, record: d } of byKind.deployment) {
    if (!pages.has(d.page_id)) {
      leave(key, deleting.has(d.page_id) ? "its page's deletion was under way" : `names page ${d.page_id}, which is not there`);
      continue;
    }
    if (!needAccount(key, d.account_id) || !once("deployments", d.id, key)) continue;
    // One deployment in flight per page (a partial unique index): a second cannot be stored.
    if (d.status === "deploying" && inFlight.has(d.page_id)) {
      leave(key, `page ${d.page_id} has another deployment in flight`);
      continue;
    }
    if (d.status === "deploying") inFlight.add(d.page_id);
    deployments.set(d.id, d);
    add("deployments", {
      id: d.id,
      page_id: d.page_id,
      account_id: d.account_id,
      status: d.status,
      deploy_step: d.deploy_step,
      error_code: d.error_code,
      error_message: d.error_message,
      deployed_url: d.deployed_url,
      deployed_at: d.deployed_at,
      simulate: d.simulate ?? null,
      step_times: toJson(d.step_times ?? {}),
      created_at: d.created_at,
      updated_at: d.updated_at,
      due_at: d.status === "deploying" ? d.created_at : null,
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  const filesOf = new Set<string>();
  for (const { key, record: f } of byKind.siteFiles) {
    const deployment = deployments.get(f.deployment_id);
    if (!deployment) {
      leave(key, `names deployment ${f.deployment_id}, which is not there`);
      continue;
    }
    if (!once("site_files", f.deployment_id, key)) continue;
    filesOf.add(f.deployment_id);
    add("site_files", { deployment_id: f.deployment_id, html: f.html, page: toJson(f.page), created_at: deployment.deployed_at ?? deployment.updated_at });
  }

  for (const { key, parts, record: s } of byKind.site) {
    const [accountId, slug] = parts as [string, string];
    const deployment = deployments.get(s.deployment_id);
    const url = s.url ?? deployment?.deployed_url ?? pages.get(s.page_id)?.deployed_url ?? null;
    if (!pages.has(s.page_id) || !deployment || !filesOf.has(s.deployment_id) || url === null) {
      leave(key, !pages.has(s.page_id) ? `names page ${s.page_id}, which is not there` : !deployment ? `names deployment ${s.deployment_id}, which is not there` : !filesOf.has(s.deployment_id) ? `the files of deployment ${s.deployment_id} are not there` : "no address is known for it");
      continue;
    }
    if (needAccount(key, accountId)) add("sites", { account_id: accountId, slug, page_id: s.page_id, deployment_id: s.deployment_id, activated_at: s.activated_at, url });
  }

  for (const { key, record: c } of byKind.checkout) {
    if (needAccount(key, c.account_id) && once("checkouts", c.id, key)) add("checkouts", { id: c.id, account_id: c.account_id, page_id: c.page_id, deployment_id: c.deployment_id, values: toJson(c.values), created_at: c.created_at });
  }

  for (const { key, parts, record: r } of byKind.idempotency) {
    const [accountId, hash] = parts as [string, string];
    if (!needAccount(key, accountId)) continue;
    const answered = r.response !== null;
    add("idempotency_keys", {
      account_id: accountId,
      key: hash,
      fingerprint: r.fingerprint,
      response_status: r.response?.status ?? null,
      response_headers: r.response ? toJson(r.response.headers) : null,
      response_body: r.response?.body ?? null,
      // An executing marker holds its key until its own expiry; one written with its change (`committed`)
      // says the change was made and its answer lost: never taken over.
      claimed_by: answered ? null : (r.owner ?? null),
      claim_expires_at: answered ? null : r.expires_at,
      changed_at: r.committed ? r.created_at : null,
      created_at: r.created_at,
      expires_at: r.expires_at,
    });
  }

  const endpoints = new Map<string, EndpointRecord>();
  for (const { key, record: e } of byKind.endpoint) {
    if (!applications.has(e.application_id)) {
      leave(key, `names application ${e.application_id}, which is not there`);
      continue;
    }
    if (!once("webhook_endpoints", e.id, key)) continue;
    endpoints.set(e.id, e as unknown as EndpointRecord);
    add("webhook_endpoints", {
      id: e.id,
      application_id: e.application_id,
      url: e.url,
      environment: e.environment,
      concurrency_limit: e.concurrency_limit,
      status: e.status,
      disabled_reason: e.disabled_reason,
      secret: e.secret,
      previous_secret: e.previous_secret,
      previous_secret_expires_at: e.previous_secret_expires_at,
      circuit_state: e.circuit.state,
      circuit_consecutive_failures: e.circuit.consecutive_failures,
      circuit_reopen_count: e.circuit.reopen_count,
      circuit_opens_until: e.circuit.opens_until,
      last_verification: e.last_verification === null ? null : toJson(e.last_verification),
      created_at: e.created_at,
      updated_at: e.updated_at,
    });
    [...new Set(e.events)].forEach((event_type, position) => add("webhook_endpoint_events", { endpoint_id: e.id, event_type, position }));
  }

  const events = new Set<string>();
  const addEvent = (event: Format2Record<"outbox">) => {
    if (events.has(event.id)) return;
    events.add(event.id);
    add("events", { id: event.id, type: event.type, account_id: event.account_id, environment: event.environment, data: toJson(event.data ?? null), created_at: event.timestamp });
  };
  const deliveries = new Set<string>();
  for (const { key, record: d } of byKind.delivery) {
    if (!endpoints.has(d.endpoint_id) || d.payload.id !== d.event_id || deliveries.has(d.id)) {
      leave(key, deliveries.has(d.id) ? `a second record of delivery ${d.id}` : d.payload.id !== d.event_id ? `its payload is event ${d.payload.id}, not ${d.event_id}` : `names endpoint ${d.endpoint_id}, which is not there`);
      continue;
    }
    deliveries.add(d.id);
    addEvent(d.payload);
    add("webhook_deliveries", toDeliveryRow(d));
    const numbers = new Set<number>();
    for (const a of d.attempts) {
      if (numbers.has(a.number)) continue;
      numbers.add(a.number);
      add("delivery_attempts", {
        delivery_id: d.id,
        number: a.number,
        trigger: a.trigger,
        started_at: a.started_at,
        status_code: a.status_code,
        latency_ms: a.latency_ms,
        outcome: a.outcome,
        error: a.error,
        response_body: a.response_body,
        truncated: a.truncated ? 1 : 0,
      });
    }
  }

  // The outbox's events were stored but not yet fanned out: each goes to the endpoints the fan-out would
  // choose (subscribed to its type, in its environment, of an application acting for its account).
  const actsFor = new Set((rows.application_accounts ?? []).map((r) => `${r.application_id}\n${r.account_id}`));
  for (const { record: event } of byKind.outbox) {
    addEvent(event);
    if (event.account_id === null) continue;
    for (const endpoint of endpoints.values()) {
      if (!endpoint.events.includes(event.type) || endpoint.environment !== event.environment || !actsFor.has(`${endpoint.application_id}\n${event.account_id}`)) continue;
      const made = toNewDelivery(event as EventRecord, endpoint, event.timestamp);
      if (deliveries.has(made.id)) continue;
      deliveries.add(made.id);
      add("webhook_deliveries", toDeliveryRow(made));
    }
  }

  const setting = (name: string, value: string) => add("settings", { name, value, created_at: options.now });
  for (const { record } of byKind.cursorKey) setting(SETTING_NAMES.cursorKey, record.value);
  for (const { record } of byKind.builderKey) setting(SETTING_NAMES.builderKey, record.value);
  for (const { record } of byKind.adminKey) setting(SETTING_NAMES.adminKey, record.key);
  for (const { record: c } of byKind.devCredentials) {
    setting(SETTING_NAMES.devCredentials, toJson({ account_id: c.account_id, token: c.token, application_id: c.application_id, client_secret: c.client_secret }));
  }

  const deletedPages = new Set([...deleting].filter((id) => !pages.has(id)));
  return {
    rows,
    left,
    notNeeded,
    // Media keys are `pages:{pageId}:...`.
    isLeftMedia: (key) => key.startsWith("pages:") && deletedPages.has(key.split(":")[1]!),
  };
}

/** A delivery's row: due at its next attempt while pending (only a pending delivery has one to make), unclaimed. */
function toDeliveryRow(d: Omit<DeliveryRecord, "attempts" | "payload">): AnyRow {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    application_id: d.application_id,
    event_type: d.event_type,
    status: d.status,
    scheduled_attempts: d.scheduled_attempts,
    auto_retry: d.auto_retry ? 1 : 0,
    next_trigger: d.next_trigger,
    skipped_reason: d.skipped_reason,
    created_at: d.created_at,
    updated_at: d.updated_at,
    due_at: d.status === "pending" ? d.next_attempt_at : null,
    lease_owner: null,
    lease_expires_at: null,
  };
}
