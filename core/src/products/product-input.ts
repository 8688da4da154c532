import { LpError } from "../errors.js";
import { MAX_IMAGE_BYTES } from "./schemas.js";
import { sniffImageType, IMAGE_TYPES, type ImageMediaType } from "../media/sniff.js";

/** An image file given to a product (the server reads them from a multipart body). */
export interface ImageUpload {
  filename: string;
  bytes: Uint8Array;
}

/** An upload whose bytes were recognised as an image. */
export interface CheckedUpload {
  bytes: Uint8Array;
  mediaType: ImageMediaType;
  ext: string;
}

/** Checks each upload by its bytes and size. */
export function checkUploads(files: ImageUpload[]): CheckedUpload[] {
  return files.map((file, i) => {
    if (file.bytes.byteLength > MAX_IMAGE_BYTES) {
      throw new LpError("payload_too_large", `Image '${file.filename}' is larger than 10 MiB.`, { limit_bytes: MAX_IMAGE_BYTES, path: `images.${i}` });
    }
    const mediaType = sniffImageType(file.bytes);
    if (!mediaType) {
      throw new LpError("validation_error", `File '${file.filename}' is not a PNG, JPEG, GIF, WebP, AVIF or SVG image.`, {
        issues: [{ path: `images.${i}`, code: "invalid_image", message: "is not a supported image (checked by its content)" }],
      });
    }
    return { bytes: file.bytes, mediaType, ext: IMAGE_TYPES[mediaType] };
  });
}
