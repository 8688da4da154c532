import { normalizeKey, type Driver, type Storage } from "unstorage";

/**
 * A driver's listing, in chunks, of raw keys (as its `getKeys` hands them to unstorage) that include every key
 * directly under `prefix` (plain segments, no trailing `:`) that its `getKeys` would list; keys further down
 * may be among them. Each chunk is small enough to be handled in one turn of the event loop.
 */
export type DirectKeyChunks = (prefix: string) => AsyncIterable<string[]>;

const CHUNKS = Symbol("lp.directKeyChunks");
type WithChunks = Storage & { [CHUNKS]?: DirectKeyChunks };

/** Keys handed on per chunk when falling back to a one-go `getKeys`. */
const FALLBACK_CHUNK = 1024;
const SEGMENT = /^[A-Za-z0-9_.-]+$/;
/** What unstorage's `normalizeKey` would rewrite in a key: a `?`, a slash or backslash, an empty segment. */
const REWRITTEN = /[?/\\]|::|^:|:$/;

/** Gives `storage` (a single-driver Storage) its driver's chunked listing, when the driver has one. */
export function attachKeyChunks(storage: Storage, driver: Driver): void {
  const chunks = (driver as Driver & { directKeyChunks?: DirectKeyChunks }).directKeyChunks;
  if (chunks) (storage as WithChunks)[CHUNKS] = chunks.bind(driver);
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The keys directly under `prefix` (`acct:a:products` lists `acct:a:products:<id>`, not the keys below those),
 * exactly the ones `storage.getKeys(prefix)` lists at that depth, handed over in chunks with a turn of the event
 * loop between them: a collection of 100,000 records is listed without holding the loop. Keys are taken as
 * unstorage would take them (its `normalizeKey`, and its rule that a key ending in `$` is not listed), but a key
 * already in that form, as every key lp writes is, skips the rewriting. A storage whose driver cannot list in
 * chunks, or a prefix that is not plain segments, is listed by one `getKeys`, then handed over in chunks.
 */
export async function* directKeys(storage: Storage, prefix: string): AsyncGenerator<string[]> {
  const clean = prefix.split(":").filter(Boolean);
  const depth = clean.length + 1;
  const chunks = (storage as WithChunks)[CHUNKS];
  const plain = clean.length > 0 && clean.every((p) => SEGMENT.test(p) && p !== "." && p !== "..");
  if (!chunks || !plain) {
    const keys = await storage.getKeys(prefix);
    for (let i = 0; i < keys.length; i += FALLBACK_CHUNK) {
      const direct = keys.slice(i, i + FALLBACK_CHUNK).filter((key) => depthOf(key) === depth);
      if (direct.length > 0) yield direct;
      await nextTurn();
    }
    return;
  }
  const base = `${clean.join(":")}:`;
  for await (const raw of chunks(clean.join(":"))) {
    const direct: string[] = [];
    for (const rawKey of raw) {
      const key = REWRITTEN.test(rawKey) ? normalizeKey(rawKey) : rawKey;
      if (key.startsWith(base) && !key.endsWith("$") && depthOf(key) === depth) direct.push(key);
    }
    if (direct.length > 0) yield direct;
    await nextTurn();
  }
}

/** How many segments `key` has. */
function depthOf(key: string): number {
  let n = 1;
  for (let at = key.indexOf(":"); at >= 0; at = key.indexOf(":", at + 1)) n++;
  return n;
}
