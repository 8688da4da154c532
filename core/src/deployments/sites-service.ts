import { destr } from "destr";
import type { Storage } from "unstorage";
import { readText, type BatchOp } from "../storage/create-storage.js";
import { createTextMemo } from "../storage/text-memo.js";
import { toTimestamp, type Clock, type IdSource } from "../deps.js";
import { stageEvent, type EventSink } from "../events/event-sink.js";
import { isAccountId } from "../ids.js";
import { validateCheckoutSubmission, type CheckoutFieldError } from "../render/checkout-submission.js";
import { renderCheckoutConfirmation } from "../render/system-pages.js";
import { siteKeys } from "./site-keys.js";
import type { SitePointer, SiteSnapshot } from "./deployment-view.js";
import type { ChangeMark } from "../db/change-mark.js";

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,80})$/;

/** A checkout form post as stored. */
export interface CheckoutRecord {
  id: string;
  account_id: string;
  page_id: string;
  deployment_id: string;
  values: Record<string, string>;
  created_at: string;
}

/** The live sites: what each address serves, and the checkout posts they receive. */
export function createSitesService(deps: { storage: Storage; batch: (ops: readonly BatchOp[]) => Promise<void>; clock: Clock; ids: IdSource; events: EventSink }) {
  const { storage } = deps;
  // A deployment's files never change once written (their key holds the deployment id), so the parsed
  // snapshots of the sites last served are kept: a GET then reads only the small pointer. Bounded by count.
  const snapshots = new Map<string, SiteSnapshot>();
  // The pointer is read on every GET (a new deployment moves it, in any process): what it names is kept
  // while its text is unchanged, so a GET parses nothing.
  const pointers = createTextMemo((text: string) => destr<SitePointer | null>(text));

  async function find(accountId: string, slug: string): Promise<SiteSnapshot | null> {
    if (!isAccountId(accountId) || !SLUG.test(slug)) return null;
    const pointerKey = siteKeys.pointer(accountId, slug);
    const text = await readText(storage, pointerKey);
    const pointer = text === null ? null : pointers.get(pointerKey, text);
    if (!pointer) return null;
    const key = siteKeys.files(accountId, pointer.page_id, pointer.deployment_id);
    const known = snapshots.get(key);
    if (known) return known;
    const snapshot = await storage.getItem<SiteSnapshot>(key);
    if (!snapshot) return null;
    if (snapshots.size >= 32) snapshots.delete(snapshots.keys().next().value!);
    snapshots.set(key, snapshot);
    return snapshot;
  }

  return {
    find,

    /**
     * Checks a checkout post against the deployed page's fields, stores it and emits
     * `checkout.submitted`. Returns the page to show, or the field errors.
     */
    async submitCheckout(
      accountId: string,
      slug: string,
      form: Record<string, string>,
      _change?: ChangeMark,
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
      // The submission and its event's outbox entry commit together: a crash keeps both or neither.
      const event = await stageEvent(deps.events, { type: "checkout.submitted", account_id: accountId, data });
      await deps.batch([{ key: `acct:${accountId}:checkouts:${record.id}`, value: record }, ...event.ops]);
      event.publish();
      return { kind: "ok", html: renderCheckoutConfirmation(site.page, result.values), record };
    },
  };
}

export type SitesService = ReturnType<typeof createSitesService>;
