import { randomBytes } from "node:crypto";
import { SECRET_PREFIX } from "./internal/secret-key.js";

/** Number of random bytes in a generated secret (256 bits, as long as an HMAC-SHA256 digest). */
export const SECRET_BYTES = 32;

/**
 * Creates a new signing secret: `whsec_` followed by base64 of 32 cryptographically random bytes.
 * Share it with the receiver once; both sides derive the HMAC key by base64-decoding the part after
 * the prefix.
 */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}
