import { createHmac, timingSafeEqual } from "node:crypto";
import type { Clock } from "../deps.js";

/** How long a builder link opens the preview: a day, rounded up to the next hour (see {@link createBuilderLinks}). */
export const BUILDER_LINK_TTL_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** An expiry is unix seconds; anything longer than this is not one of ours and is refused unread. */
const MAX_EXPIRES_LENGTH = 12;
/** A SHA-256 HMAC in base64url is 43 characters. */
const SIG_LENGTH = 43;

/** What signs builder links. */
export interface BuilderLinkDeps {
  /** The server's key (`meta:builder_key`): kept in the store, so it survives restarts and a cluster shares it. */
  secret: Buffer;
  clock: Clock;
  publicUrl: () => string;
  ttlMs?: number;
}

/**
 * Signed, expiring links to the builder preview. The preview shows a page's unpublished edits, and its
 * id is printed by every deployed site (media addresses), so the id alone must open nothing: the link
 * carries `expires` (unix seconds) and `sig`, an HMAC-SHA256 over `{page_id}.{expires}` keyed by the
 * server's secret. The expiry is rounded up to the hour, so the link a page answers with stays the same
 * for an hour and a console that frames it does not reload the frame on every poll.
 */
export function createBuilderLinks(deps: BuilderLinkDeps) {
  const ttl = deps.ttlMs ?? BUILDER_LINK_TTL_MS;
  const sign = (pageId: string, expires: string) => createHmac("sha256", deps.secret).update(`${pageId}.${expires}`).digest("base64url");

  return {
    /** The link `builder_url` carries for a page: valid from now for at least the TTL. */
    url(pageId: string): string {
      const expires = String(Math.ceil((deps.clock.now().getTime() + ttl) / HOUR_MS) * (HOUR_MS / 1000));
      return `${deps.publicUrl()}/builder/${pageId}?expires=${expires}&sig=${sign(pageId, expires)}`;
    },

    /** Whether a link's `expires` and `sig` open page `pageId` now. Bounded before any hashing. */
    verify(pageId: string, expires: string | null, sig: string | null): boolean {
      if (!expires || !sig || expires.length > MAX_EXPIRES_LENGTH || sig.length !== SIG_LENGTH || !/^\d+$/.test(expires)) return false;
      if (Number(expires) * 1000 <= deps.clock.now().getTime()) return false;
      const given = Buffer.from(sig, "utf8");
      const expected = Buffer.from(sign(pageId, expires), "utf8");
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** Signed builder links ({@link createBuilderLinks}). */
export type BuilderLinks = ReturnType<typeof createBuilderLinks>;
