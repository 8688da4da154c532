import type { ChangeMark } from "../db/change-mark.js";
import type { Database } from "../db/database.js";
import type { UnreadableRows } from "../db/unreadable-rows.js";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { recordEvent, type EventSink } from "../events/event-sink.js";
import { isAccountId } from "../ids.js";
import { validateCheckoutSubmission, type CheckoutFieldError } from "../render/checkout-submission.js";
import { renderCheckoutConfirmation } from "../render/system-pages.js";
import { createDeploymentRepository } from "./deployment-repository.js";
import type { SiteSnapshot } from "./deployment-view.js";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,80})$/;
/** Deployments' files kept parsed, the latest served first out. */
const KEPT_SNAPSHOTS = 32;

/** A checkout form post as stored. */
export interface CheckoutRecord {
  id: string;
  account_id: string;
  page_id: string;
  deployment_id: string;
  values: Record<string, string>;
  created_at: string;
}

/** What the sites service is built on. */
export interface SitesDeps {
  database: Database;
  clock: Clock;
  ids: IdSource;
  events: EventSink;
  /** Names in the log, once each, the rows a read cannot take as their resource. */
  unreadableRows?: UnreadableRows;
}

/** The live sites: what each address serves, and the checkout posts they receive. */
export function createSitesService(deps: SitesDeps) {
  const { database } = deps;
  const repo = createDeploymentRepository(database.dialect, deps.unreadableRows);
  // A deployment's files never change once written, so the snapshots of the sites last served are kept
  // parsed (the same object each time: the routes keep its encoded answer beside it), and a GET reads only
  // which deployment the address serves, which a new deployment changes in any process. Bounded by count.
  const snapshots = new Map<string, SiteSnapshot>();

  async function find(accountId: string, slug: string): Promise<SiteSnapshot | null> {
    if (!isAccountId(accountId) || !SLUG.test(slug)) return null;
    const pointer = await repo.readSitePointer(database.db, accountId, slug);
    if (!pointer) return null;
    const known = snapshots.get(pointer.deployment_id);
    if (known) return known;
    const snapshot = await repo.readSiteFiles(database.db, pointer.deployment_id);
    if (!snapshot) return null;
    if (snapshots.size >= KEPT_SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
    snapshots.set(pointer.deployment_id, snapshot);
    return snapshot;
  }

  return {
    find,

    /**
     * Checks a checkout post against the deployed page's fields, and stores it with `checkout.submitted` in
     * one transaction. Returns the page to show, or the field errors.
     */
    async submitCheckout(
      accountId: string,
      slug: string,
      form: Record<string, string>,
      change?: ChangeMark,
    ): Promise<{ kind: "missing" } | { kind: "invalid"; errors: CheckoutFieldError[]; site: SiteSnapshot } | { kind: "ok"; html: string; record: CheckoutRecord }> {
      const site = await find(accountId, slug);
      if (!site) return { kind: "missing" };
      const result = validateCheckoutSubmission(site.page.checkout_fields, form);
      if (!result.ok) return { kind: "invalid", errors: result.errors, site };
      const record: CheckoutRecord = {
        id: deps.ids.uuid(),
        account_id: accountId,
        page_id: site.page.id,
        deployment_id: site.deployment_id,
        values: result.values,
        created_at: toTimestamp(deps.clock.now()),
      };
      const { account_id: _account, ...data } = record;
      await database.transaction(async (tx) => {
        await repo.insertCheckout(tx, record);
        await recordEvent(deps.events, tx, { type: "checkout.submitted", account_id: accountId, data });
        await change?.(tx);
      });
      return { kind: "ok", html: renderCheckoutConfirmation(site.page, result.values), record };
    },
  };
}

export type SitesService = ReturnType<typeof createSitesService>;
