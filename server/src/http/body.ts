import { LpError, MAX_IMAGES, MAX_IMAGE_BYTES } from "@lp/core";
import { drainRefused, readChunk } from "./drain.js";
import { readForm, toFieldRecord, type FormLimits, type Upload } from "./form.js";

/** Largest JSON body accepted. */
export const JSON_LIMIT = 1024 * 1024;
/** Largest multipart body: 20 images of 10 MiB plus room for fields. */
export const MULTIPART_LIMIT = MAX_IMAGES * MAX_IMAGE_BYTES + JSON_LIMIT;

/**
 * Limits of a product's multipart body. The fields of the product schemas (a few scalars, up to 20 image
 * URLs, up to 100 image ids) fit well inside them; a form passing any of them is not one of ours.
 */
export const MULTIPART_LIMITS: FormLimits = {
  bytes: MULTIPART_LIMIT,
  parts: 256,
  fields: 250,
  fieldSize: 64 * 1024,
  files: MAX_IMAGES,
  fileSize: MAX_IMAGE_BYTES,
  fieldNameSize: 100,
};

/** A body as the transport read it, before its route's schema: JSON, or multipart fields and files. */
export type BodyInput =
  | { kind: "json"; body: unknown }
  | { kind: "multipart"; fields: Record<string, string | string[]>; files: Upload[] };

/** Which bodies a route takes (from its declared body, see `bodyKindOf`). */
export type BodyKind = "none" | "json" | "json-or-multipart" | "optional-json";

const tooLarge = (limit: number) =>
  new LpError("payload_too_large", `The request body is larger than ${Math.round(limit / 1024)} KiB.`, { limit: "body", limit_bytes: limit });

/** Reads the whole body, refusing it as soon as it passes `limit` (declared or actual length). */
export async function readLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (!req.body) {
    if (declared > limit) throw tooLarge(limit);
    return new Uint8Array();
  }
  const reader = req.body.getReader();
  if (declared > limit) {
    await drainRefused(reader);
    throw tooLarge(limit);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Never cancel: cancelling destroyed the socket under the server while the 413 was being written
      // (the process then died in the server's socket bookkeeping). Drain a little, then the 413 with
      // `Connection: close` lets Node close the connection itself once the answer is out.
      await drainRefused(reader);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type);

/** The parsed body of a request for a route taking `kind`, plus the raw text for idempotency. */
export async function readBody(req: Request, kind: BodyKind, jsonLimit = JSON_LIMIT): Promise<{ input: BodyInput | null; raw: string }> {
  if (kind === "none") return { input: null, raw: "" };
  const type = req.headers.get("content-type") ?? "";
  if (kind === "json-or-multipart" && /^multipart\/form-data\b/i.test(type)) {
    const form = await readForm(req, MULTIPART_LIMITS);
    return { input: { kind: "multipart", fields: toFieldRecord(form.fields), files: form.files }, raw: form.fingerprint };
  }
  const bytes = await readLimited(req, jsonLimit);
  // JSON is UTF-8 (RFC 8259): bytes that are not must not reach a record as replacement characters.
  let text: string;
  let utf8 = true;
  try {
    text = utf8Decoder.decode(bytes);
  } catch {
    utf8 = false;
    text = "\uFFFD";
  }
  const accepted = kind === "json-or-multipart" ? "application/json or multipart/form-data" : "application/json";
  if (bytes.byteLength === 0 || text.trim() === "") {
    if (kind === "optional-json") return { input: { kind: "json", body: undefined }, raw: "" };
    if (!type) return { input: { kind: "json", body: undefined }, raw: "" };
  }
  // A body must say what it is: guessing JSON for an untyped body let any client's text through as JSON.
  if (!type) throw new LpError("unsupported_media_type", `The request has a body but no Content-Type; send ${accepted}.`);
  if (!isJson(type)) {
    throw new LpError("unsupported_media_type", `Content-Type '${type.split(";")[0]}' is not accepted here; send ${accepted}.`);
  }
  if (!utf8) throw new LpError("invalid_json", "The body is not valid JSON: it is not valid UTF-8.");
  let body: unknown;
  try {
    body = text.trim() === "" ? undefined : JSON.parse(text);
  } catch (error) {
    throw new LpError("invalid_json", `The body is not valid JSON: ${(error as Error).message}`);
  }
  // `null` is refused here, for every route alike: services used to read it as "no body" (`body ?? {}`)
  // on some routes and as a wrong type on others.
  if (body === null) {
    throw new LpError("validation_error", "The body must be a JSON object, not null.", {
      issues: [{ path: "", code: "invalid_type", message: "must be a JSON object, not null" }],
    });
  }
  return { input: { kind: "json", body }, raw: text };
}
