import type { Storage } from "unstorage";
import { removePrefix } from "../storage/remove-prefix.js";
import { mediaTypeFromKey } from "./sniff.js";

const MEDIA_PATH = /^[a-z0-9_-]+(\/[A-Za-z0-9_-]+)*\/[A-Za-z0-9_-]+\.(png|jpg|gif|webp|avif|svg)$/;

/**
 * Stored media (uploads and generated images), addressed by a path such as
 * `products/{productId}/{imageId}.png` and served at `{public_url}/media/{path}`.
 */
export function createMediaStore(storage: Storage, publicUrl: () => string) {
  const toKey = (path: string) => path.split("/").join(":");
  return {
    /** True when `path` is shaped like a media path (checked before it becomes a storage key). */
    isValidPath: (path: string) => MEDIA_PATH.test(path),
    urlOf: (path: string) => `${publicUrl()}/media/${path}`,
    async put(path: string, bytes: Uint8Array | string): Promise<void> {
      if (!MEDIA_PATH.test(path)) throw new Error(`Invalid media path: ${path}`);
      await storage.setItemRaw(toKey(path), typeof bytes === "string" ? Buffer.from(bytes, "utf8") : Buffer.from(bytes));
    },
    async get(path: string): Promise<{ bytes: Buffer; mediaType: string } | null> {
      if (!MEDIA_PATH.test(path)) return null;
      const raw = await storage.getItemRaw(toKey(path));
      if (raw === null || raw === undefined) return null;
      const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw as Uint8Array);
      return { bytes, mediaType: mediaTypeFromKey(path) };
    },
    async removePrefix(prefix: string): Promise<void> {
      await removePrefix(storage, toKey(prefix));
    },
  };
}

export type MediaStore = ReturnType<typeof createMediaStore>;
