import { toJson } from "./column-types.js";
import { addAccountRows, addIdempotencyRows } from "./format-2-account-rows.js";
import { addDeploymentRows } from "./format-2-deployment-rows.js";
import { addPageRows, addProductRows } from "./format-2-page-rows.js";
import { createRowBuild, sortRecords, type LeftOut } from "./format-2-row-build.js";
import { addWebhookRows } from "./format-2-webhook-rows.js";
import type { TableRows } from "./table-catalog.js";

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
  const build = createRowBuild(byKind, left);
  const { rows, add } = build;
  // In the order the records name each other: each area is checked against the rows the ones before wrote.
  const applications = addAccountRows(build);
  const products = addProductRows(build);
  const written = addPageRows(build, products);
  addDeploymentRows(build, written);
  addIdempotencyRows(build);
  addWebhookRows(build, applications);

  const setting = (name: string, value: string) => add("settings", { name, value, created_at: options.now });
  for (const { record } of byKind.cursorKey) setting(SETTING_NAMES.cursorKey, record.value);
  for (const { record } of byKind.builderKey) setting(SETTING_NAMES.builderKey, record.value);
  for (const { record } of byKind.adminKey) setting(SETTING_NAMES.adminKey, record.key);
  for (const { record: c } of byKind.devCredentials) {
    setting(SETTING_NAMES.devCredentials, toJson({ account_id: c.account_id, token: c.token, application_id: c.application_id, client_secret: c.client_secret }));
  }

  const deletedPages = new Set([...written.deleting].filter((id) => !written.pages.has(id)));
  return {
    rows,
    left,
    notNeeded,
    // Media keys are `pages:{pageId}:...`.
    isLeftMedia: (key) => key.startsWith("pages:") && deletedPages.has(key.split(":")[1]!),
  };
}
