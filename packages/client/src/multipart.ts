import { openAsBlob } from "node:fs";
import { basename, extname } from "node:path";

const TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".svg": "image/svg+xml",
};

/**
 * Opens a local image as a `File` for `products.create` / `products.update`. The bytes are read
 * lazily when the request is sent; the server checks the content, the extension only sets the type.
 */
export async function imageFromFile(path: string): Promise<File> {
  const type = TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
  const blob = await openAsBlob(path, { type });
  return new File([blob], basename(path), { type });
}

/** True when `body` holds at least one `Blob` among its images, so it must go as multipart. */
export function hasFiles(body: { images?: unknown[] }): boolean {
  return Array.isArray(body.images) && body.images.some((image) => image instanceof Blob);
}

/**
 * Writes a product body as multipart fields: numbers as strings, a null `description` as the empty
 * string that clears it, id lists repeated, `reorder_images` as JSON, and each image as a file or a URL.
 */
export function toFormData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    if (key === "images" && Array.isArray(value)) {
      for (const image of value) {
        if (image instanceof Blob) form.append("images", image, image instanceof File ? image.name : "image");
        else form.append("images", String(image));
      }
    } else if (key === "reorder_images") {
      form.append(key, JSON.stringify(value));
    } else if (Array.isArray(value)) {
      for (const item of value) form.append(key, String(item));
    } else if (value === null) {
      // Multipart has no null: an empty field clears `description`; prices cannot be cleared this way.
      form.append(key, "");
    } else {
      form.append(key, String(value));
    }
  }
  return form;
}
