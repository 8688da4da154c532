import { createHmac, timingSafeEqual, type KeyObject } from "node:crypto";

/** The signature scheme this package produces and accepts (symmetric HMAC-SHA256). */
export const SIGNATURE_VERSION = "v1";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const DIGEST_BYTES = 32;

/**
 * HMAC-SHA256 over `{id}.{timestamp}.{body}`. The body is hashed as given: bytes stay bytes, so a
 * payload that is not valid UTF-8 is never altered by a decode/encode round trip.
 */
export function computeSignature(key: Uint8Array | KeyObject, id: string, timestamp: number, body: string | Uint8Array): Buffer {
  const hmac = createHmac("sha256", key);
  hmac.update(`${id}.${timestamp}.`, "utf8");
  if (typeof body === "string") hmac.update(body, "utf8");
  else hmac.update(body);
  return hmac.digest();
}

/** `v1,<base64>`: one entry of a `webhook-signature` header. */
export function formatSignature(digest: Uint8Array): string {
  // A Buffer (what computeSignature returns) is encoded as it is, without a copy.
  const bytes = Buffer.isBuffer(digest) ? digest : Buffer.from(digest);
  return `${SIGNATURE_VERSION},${bytes.toString("base64")}`;
}

/** What a `webhook-signature` header holds: decoded v1 digests, and the entries that were skipped. */
export interface ParsedSignatureHeader {
  v1: Buffer[];
  skipped: string[];
}

/**
 * Splits a `webhook-signature` header into entries. Entries are space separated; a trailing comma
 * is tolerated because some proxies join repeated headers with ", ". Other versions (for example
 * asymmetric `v1a`) are skipped, as Standard Webhooks requires, not rejected.
 */
export function parseSignatureHeader(value: string): ParsedSignatureHeader {
  const v1: Buffer[] = [];
  const skipped: string[] = [];
  for (const raw of value.split(/\s+/)) {
    const entry = raw.replace(/,+$/, "");
    if (entry === "") continue;
    const comma = entry.indexOf(",");
    const version = comma === -1 ? "" : entry.slice(0, comma);
    const encoded = comma === -1 ? "" : entry.slice(comma + 1);
    if (version === SIGNATURE_VERSION && BASE64.test(encoded)) v1.push(Buffer.from(encoded, "base64"));
    else skipped.push(entry);
  }
  return { v1, skipped };
}

/**
 * Index of the first candidate equal to `expected`, or -1. Every candidate of the right length is
 * compared with `timingSafeEqual`, and the loop never exits early, so the time taken does not
 * reveal how much of a forged signature was right nor which entry matched.
 */
export function findMatch(expected: Buffer, candidates: readonly Buffer[]): number {
  let found = -1;
  for (let i = 0; i < candidates.length; i++) {
    const candidate = candidates[i];
    if (candidate.length !== DIGEST_BYTES || expected.length !== DIGEST_BYTES) continue;
    if (timingSafeEqual(candidate, expected) && found === -1) found = i;
  }
  return found;
}
