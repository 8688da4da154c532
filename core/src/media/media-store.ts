import type { Storage } from "unstorage";
import { StorageFaultError } from "../storage/storage-faults.js";
import { mediaTypeFromKey } from "./sniff.js";

const MEDIA_PATH = /^[a-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/[A-Za-z0-9_-]+\.(png|jpg|gif|webp|avif|svg)$/;
/** Longest media path: stored ones are about 90 characters (`products/{uuid}/{uuid}.png`). */
export const MEDIA_PATH_MAX_LENGTH = 256;
/** Most segments in a media path: stored ones have three. */
export const MEDIA_PATH_MAX_SEGMENTS = 6;

/**
 * True when `path` is shaped like a media path: its length and segment count first (a path of thousands
 * of segments would reach the file system as a name too long), then its characters and extension.
 */
export function isMediaPath(path: string): boolean {
  if (path.length > MEDIA_PATH_MAX_LENGTH) return false;
  let segments = 1;
  for (let at = path.indexOf("/"); at >= 0; at = path.indexOf("/", at + 1)) if (++segments > MEDIA_PATH_MAX_SEGMENTS) return false;
  return MEDIA_PATH.test(path);
}

/**
 * Makes the bytes of a media path that is drawn from other stored media on first request (null: not one of
 * those, or its source is missing). `read` reads stored bytes.
 */
export type MediaDerivation = (path: string, read: (path: string) => Promise<Buffer | null>) => Promise<Uint8Array | null>;

/**
 * Stored media (uploads and generated images), addressed by a path such as
 * `products/{productId}/{imageId}.png` and served at `{public_url}/media/{path}`. A path that is missing
 * but can be derived (`derive`) is made once, stored, then served like any other. `storage` holds the
 * bytes: the media blobs of the core's database (`media-blobs.ts`), keys being paths with `:` for `/`.
 */
export function createMediaStore(storage: Storage, publicUrl: () => string, derive?: MediaDerivation) {
  const toKey = (path: string) => path.split("/").join(":");
  /** The keys under a prefix of segments (`pages/p1`): the prefix itself and what is below it, never a sibling sharing its start. */
  const keysUnder = async (prefix: string) => {
    const base = prefix.split(/[:/]/).filter(Boolean).join(":");
    if (!base) throw new Error("a media prefix must name at least one segment");
    return (await storage.getKeys(base)).filter((key) => key === base || key.startsWith(`${base}:`));
  };
  const read = async (path: string): Promise<Buffer | null> => {
    const raw = await storage.getItemRaw(toKey(path));
    if (raw === null || raw === undefined) return null;
    return Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
  };
  // Crawlers fetch a fresh preview image many at once: one drawing per path.
  const deriving = new Map<string, Promise<Buffer | null>>();
  const derived = (path: string): Promise<Buffer | null> => {
    let pending = deriving.get(path);
    if (!pending) {
      pending = (async () => {
        const bytes = await derive!(path, read).catch((error: unknown) => {
          // Served as missing (404), never as a failed request; the next request tries again.
          console.error(`[lp] could not draw ${path}:`, error);
          return null;
        });
        if (!bytes) return null;
        // A read goes on when the storage refuses writes: the drawing is served unstored, and drawn again next time.
        await storage.setItemRaw(toKey(path), Buffer.from(bytes)).catch((error: unknown) => {
          if (!(error instanceof StorageFaultError)) throw error;
        });
        return Buffer.from(bytes);
      })().finally(() => deriving.delete(path));
      deriving.set(path, pending);
    }
    return pending;
  };
  return {
    /** True when `path` is shaped like a media path (checked before it becomes a storage key). */
    isValidPath: isMediaPath,
    urlOf: (path: string) => `${publicUrl()}/media/${path}`,
    async put(path: string, bytes: Uint8Array | string): Promise<void> {
      if (!isMediaPath(path)) throw new Error(`Invalid media path: ${path.slice(0, MEDIA_PATH_MAX_LENGTH)}`);
      await storage.setItemRaw(toKey(path), typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes));
    },
    async get(path: string): Promise<{ bytes: Buffer; mediaType: string } | null> {
      if (!isMediaPath(path)) return null;
      const bytes = (await read(path)) ?? (derive ? await derived(path) : null);
      return bytes ? { bytes, mediaType: mediaTypeFromKey(path) } : null;
    },
    /** Removes the media at `path`; nothing when there is none. */
    async remove(path: string): Promise<void> {
      if (!isMediaPath(path)) throw new Error(`Invalid media path: ${path.slice(0, MEDIA_PATH_MAX_LENGTH)}`);
      await storage.removeItem(toKey(path));
    },
    /** Removes every media path under `prefix` (`pages/{id}`), key by key: some drivers' `clear(base)` would clear everything. */
    async removePrefix(prefix: string): Promise<void> {
      await Promise.all((await keysUnder(prefix)).map((key) => storage.removeItem(key)));
    },
    /** Every stored media path, or those under `prefix` (`products/{id}`), sorted. */
    async paths(prefix?: string): Promise<string[]> {
      const keys = prefix === undefined ? await storage.getKeys() : await keysUnder(prefix);
      return keys.map((key) => key.split(":").join("/")).sort();
    },
  };
}

/** The media store of a core. */
export type MediaStore = ReturnType<typeof createMediaStore>;
