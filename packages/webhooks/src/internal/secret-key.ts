import { createSecretKey, type KeyObject } from "node:crypto";

/** The prefix of every secret; the HMAC key is the base64 after it. */
export const SECRET_PREFIX = "whsec_";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * One configured secret, parsed. `key` is set when the secret is well formed. A secret that is
 * malformed in a way people commonly get wrong (whitespace from copy-paste, the prefix twice) has no
 * `key` but a `repairedKey` and `problems`: verification treats it as non-matching and the
 * diagnosis says whether the repaired form would have matched. `fatal` means nothing can be made of it.
 */
export interface ParsedSecret {
  index: number;
  text: string;
  key?: Buffer;
  repairedKey?: Buffer;
  problems: string[];
  fatal?: string;
}

/** Parses one secret leniently enough to diagnose, strictly enough never to accept a malformed one. */
export function parseSecret(secret: unknown, index = 0, label = `secret #${index + 1}`): ParsedSecret {
  if (typeof secret !== "string") return { index, text: "", problems: [], fatal: `${label} is not a string` };
  if (secret.trim() === "") return { index, text: secret, problems: [], fatal: `${label} is empty` };
  const strict = decodeStrict(secret);
  if (strict) return { index, text: secret, key: strict, problems: [] };

  const problems: string[] = [];
  let repaired = secret;
  if (repaired.trim() !== repaired) {
    problems.push("has leading/trailing whitespace");
    repaired = repaired.trim();
  }
  if (repaired.startsWith(SECRET_PREFIX + SECRET_PREFIX)) {
    problems.push(`duplicates the ${SECRET_PREFIX} prefix`);
    while (repaired.startsWith(SECRET_PREFIX + SECRET_PREFIX)) repaired = repaired.slice(SECRET_PREFIX.length);
  }
  const repairedKey = decodeStrict(repaired);
  if (!repairedKey || problems.length === 0) {
    return {
      index,
      text: secret,
      problems,
      fatal: `${label} is not "${SECRET_PREFIX}" followed by base64`,
    };
  }
  return { index, text: secret, repairedKey, problems };
}

/** Parses a list of secrets (newest first); a single string is a list of one. */
export function parseSecrets(secrets: string | readonly string[]): ParsedSecret[] {
  const list = typeof secrets === "string" ? [secrets] : [...secrets];
  return list.map((secret, index) => parseSecret(secret, index, list.length === 1 ? "the secret" : undefined));
}

/** Keys of secrets already parsed: a sender signs every attempt with the same few secrets. */
const signingKeys = new Map<string, KeyObject>();
/** Bound of {@link signingKeys}; past it the oldest key is forgotten (a fan-out to many endpoints). */
const SIGNING_KEY_CACHE = 4096;

/**
 * The HMAC key of a well-formed secret, as a key object; throws a `TypeError` naming the problem
 * otherwise. Key objects are kept per secret text (they are immutable), so signing a retry or the next
 * delivery to the same endpoint neither re-validates and base64-decodes its secret nor makes a new key.
 */
export function toSigningKey(secret: string, index = 0): KeyObject {
  const known = signingKeys.get(secret);
  if (known) return known;
  const label = `secret #${index + 1}`;
  const parsed = parseSecret(secret, index, label);
  if (parsed.key) {
    const key = createSecretKey(parsed.key);
    if (signingKeys.size >= SIGNING_KEY_CACHE) signingKeys.delete(signingKeys.keys().next().value!);
    signingKeys.set(secret, key);
    return key;
  }
  const why = parsed.fatal ?? `${label} ${parsed.problems.join(" and ")}`;
  throw new TypeError(`Cannot sign: ${why}. Secrets look like "${SECRET_PREFIX}" + base64 of 32 random bytes.`);
}

function decodeStrict(secret: string): Buffer | undefined {
  const body = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(body) || body.length % 4 === 1) return undefined;
  const key = Buffer.from(body, "base64");
  return key.length > 0 ? key : undefined;
}
