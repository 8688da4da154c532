import { LpError } from "../errors.js";
import { MAX_IMAGE_BYTES } from "./schemas.js";
import { sniffImageType, IMAGE_TYPES, type ImageMediaType } from "../media/sniff.js";

/** An uploaded file from a multipart body. */
export interface Upload {
  field: string;
  filename: string;
  bytes: Uint8Array;
}

/** A create or update body as the transport read it: JSON, or multipart fields and files. */
export type BodyInput =
  | { kind: "json"; body: unknown }
  | { kind: "multipart"; fields: Record<string, string | string[]>; files: Upload[] };

/** An upload whose bytes were recognised as an image. */
export interface CheckedUpload {
  bytes: Uint8Array;
  mediaType: ImageMediaType;
  ext: string;
}

/** Checks each upload by its bytes and size; only the `images` field may carry files. */
export function checkUploads(files: Upload[]): CheckedUpload[] {
  return files.map((file, i) => {
    if (file.field !== "images" && file.field !== "images[]") {
      throw new LpError("validation_error", `Unexpected file field '${file.field}'; upload images in the 'images' field.`, {
        issues: [{ path: file.field, code: "unexpected_file", message: "only the images field takes files" }],
      });
    }
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
