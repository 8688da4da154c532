import { createHash } from "node:crypto";
import { LpError, type BodyInput, type Upload } from "@lp/core";

/** Largest JSON body accepted. */
export const JSON_LIMIT = 1024 * 1024;
/** Largest multipart body: 20 images of 10 MiB plus room for fields. */
export const MULTIPART_LIMIT = 20 * 10 * 1024 * 1024 + JSON_LIMIT;

/** Which bodies a route takes. */
export type BodyKind = "none" | "json" | "json-or-multipart" | "optional-json";

const tooLarge = (limit: number) =>
  new LpError("payload_too_large", `The request body is larger than ${Math.round(limit / 1024)} KiB.`, { limit_bytes: limit });

/** Reads the whole body, refusing it as soon as it passes `limit` (declared or actual length). */
export async function readLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading, but never cancel: cancelling destroys the socket under the server while the 413 is
      // being written (the process then died in the server's socket bookkeeping). The 413 carries
      // `Connection: close`, so Node closes the connection itself once the answer is out.
      reader.releaseLock();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const isJson = (type: string) => /^application\/([\w.+-]+\+)?json\b/i.test(type);

/** The parsed body of a request for a route taking `kind`, plus the raw text for idempotency. */
export async function readBody(req: Request, kind: BodyKind, jsonLimit = JSON_LIMIT): Promise<{ input: BodyInput | null; raw: string }> {
  if (kind === "none") return { input: null, raw: "" };
  const type = req.headers.get("content-type") ?? "";
  if (kind === "json-or-multipart" && /^multipart\/form-data\b/i.test(type)) {
    const bytes = await readLimited(req, MULTIPART_LIMIT);
    return { input: await parseMultipart(bytes, type), raw: fingerprintBytes(bytes) };
  }
  const bytes = await readLimited(req, jsonLimit);
  const text = Buffer.from(bytes).toString("utf8");
  if (bytes.byteLength === 0 || text.trim() === "") {
    if (kind === "optional-json") return { input: { kind: "json", body: undefined }, raw: "" };
    if (!type) return { input: { kind: "json", body: undefined }, raw: "" };
  }
  if (type && !isJson(type)) {
    const accepted = kind === "json-or-multipart" ? "application/json or multipart/form-data" : "application/json";
    throw new LpError("unsupported_media_type", `Content-Type '${type.split(";")[0]}' is not accepted here; send ${accepted}.`);
  }
  try {
    return { input: { kind: "json", body: text.trim() === "" ? undefined : JSON.parse(text) }, raw: text };
  } catch (error) {
    throw new LpError("invalid_json", `The body is not valid JSON: ${(error as Error).message}`);
  }
}

async function parseMultipart(bytes: Uint8Array, type: string): Promise<BodyInput> {
  let form: FormData;
  try {
    form = await new Response(Buffer.from(bytes), { headers: { "content-type": type } }).formData();
  } catch {
    throw new LpError("validation_error", "The multipart body could not be parsed.", {
      issues: [{ path: "body", code: "invalid_multipart", message: "malformed multipart/form-data" }],
    });
  }
  // A Map, then own properties: assigning `fields["__proto__"]` would swap the object's prototype.
  const collected = new Map<string, string | string[]>();
  const files: Upload[] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") {
      const previous = collected.get(name);
      collected.set(name, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]);
    } else {
      files.push({ field: name, filename: value.name || "upload", bytes: new Uint8Array(await value.arrayBuffer()) });
    }
  }
  // A field sent once stays a string; the schemas decide which fields may repeat.
  return { kind: "multipart", fields: Object.fromEntries(collected), files };
}

/** Multipart bodies are fingerprinted by their hash, which keeps a 200 MiB body out of memory twice. */
function fingerprintBytes(bytes: Uint8Array): string {
  return `multipart:${createHash("sha256").update(bytes).digest("hex")}`;
}
