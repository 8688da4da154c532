import { createHmac, timingSafeEqual } from "node:crypto";
import { LpError } from "../errors.js";

/** Where a page of a keyset listing starts: the sort value and the id of the last item of the page before. */
export interface KeysetPosition {
  value: string | number | null;
  id: string;
}

/**
 * Opaque cursors: the keyset position, bound to the listing's filters and sort by a fingerprint, and
 * signed so a tampered cursor is refused rather than silently jumping elsewhere.
 */
export interface CursorCodec {
  encode(position: KeysetPosition, binding: unknown): string;
  decode(cursor: string, binding: unknown): KeysetPosition;
}

/** A codec signing with `key` (kept in storage so cursors survive restarts). */
export function createCursorCodec(key: Buffer): CursorCodec {
  const mac = (text: string) => createHmac("sha256", key).update(text).digest().subarray(0, 12);
  const fingerprint = (binding: unknown) =>
    createHmac("sha256", key).update(JSON.stringify(binding)).digest("base64url").slice(0, 12);
  const invalid = (why: string) =>
    new LpError("invalid_cursor", `The cursor is not valid for this listing: ${why}. Start again without a cursor.`);

  return {
    encode(position, binding) {
      const body = Buffer.from(JSON.stringify([position.value, position.id, fingerprint(binding)])).toString("base64url");
      return `${body}.${mac(body).toString("base64url")}`;
    },
    decode(cursor, binding) {
      const [body, signature, extra] = cursor.split(".");
      if (!body || !signature || extra !== undefined || cursor.length > 1024) throw invalid("malformed");
      // Compared as text: base64url decoding ignores stray trailing characters, the canonical text does not.
      const given = Buffer.from(signature);
      const expected = Buffer.from(mac(body).toString("base64url"));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid("it was altered");
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
      } catch {
        throw invalid("malformed");
      }
      if (!Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[1] !== "string") throw invalid("malformed");
      if (parsed[2] !== fingerprint(binding)) throw invalid("it was issued for other filters or another sort");
      const value = parsed[0];
      if (value !== null && typeof value !== "string" && typeof value !== "number") throw invalid("malformed");
      return { value, id: parsed[1] };
    },
  };
}
