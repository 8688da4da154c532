/** The image formats accepted as uploads, with the extension each is stored under. */
export const IMAGE_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "image/svg+xml": "svg",
} as const;

export type ImageMediaType = keyof typeof IMAGE_TYPES;

const startsWith = (bytes: Uint8Array, signature: number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/**
 * The media type of an image judged by its bytes, never by its name or the declared type, or null when
 * the bytes are not one of the accepted formats.
 */
export function sniffImageType(bytes: Uint8Array): ImageMediaType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(bytes, ascii("ftyp"), 4) && (startsWith(bytes, ascii("avif"), 8) || startsWith(bytes, ascii("avis"), 8))) return "image/avif";
  if (isSvg(bytes)) return "image/svg+xml";
  return null;
}

function isSvg(bytes: Uint8Array): boolean {
  // Text only: a NUL byte in the head means binary.
  const head = Buffer.from(bytes.subarray(0, 4096)).toString("utf8");
  if (head.includes("\u0000")) return false;
  return /^<svg[\s>]/i.test(skipProlog(head.replace(/^\uFEFF/, "")));
}

/** What may come before `<svg`: an XML declaration, comments, a doctype, and white space between them. */
const PROLOG: [open: string, close: string][] = [
  ["<?xml", "?>"],
  ["<!--", "-->"],
  ["<!doctype", ">"],
];

/**
 * `text` from its first element on, past the prolog items. A scan with `indexOf` rather than
 * `<!--[\s\S]*?-->`-style replaces, which are quadratic on a head full of unclosed openers.
 */
function skipProlog(text: string): string {
  let at = 0;
  for (;;) {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    const item = PROLOG.find(([open]) => text.slice(at, at + open.length).toLowerCase() === open);
    if (!item) return text.slice(at);
    const end = text.indexOf(item[1], at + item[0].length);
    if (end < 0) return "";
    at = end + item[1].length;
  }
}

/** The media type implied by a URL's extension; `image/jpeg` when it says nothing (DESIGN §6). */
export function mediaTypeFromUrl(url: string): string {
  const path = url.split(/[?#]/)[0].toLowerCase();
  const ext = path.slice(path.lastIndexOf(".") + 1);
  const byExt: Record<string, string> = {
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    gif: "image/gif",
    webp: "image/webp",
    avif: "image/avif",
    svg: "image/svg+xml",
  };
  return byExt[ext] ?? "image/jpeg";
}

/** Media type from a stored media key's extension, for serving. */
export function mediaTypeFromKey(key: string): string {
  const ext = key.slice(key.lastIndexOf(".") + 1);
  const found = Object.entries(IMAGE_TYPES).find(([, e]) => e === ext);
  return found ? found[0] : "application/octet-stream";
}
