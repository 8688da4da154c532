import { createHash } from "node:crypto";
import type { BusboyInstance } from "@fastify/busboy";
import { LpError, type ImageUpload } from "@lp/core";
import { drainRefused, readChunk } from "./drain.js";

/** A file of a multipart body, with the field it came in. */
export interface Upload extends ImageUpload {
  field: string;
}

/** Limits of one form body (multipart or urlencoded), checked while it streams in. */
export interface FormLimits {
  /** Whole body, in bytes. */
  bytes: number;
  /** Fields plus files. */
  parts: number;
  fields: number;
  /** Bytes of one field's value. */
  fieldSize: number;
  files: number;
  /** Bytes of one file. */
  fileSize: number;
  /** Bytes of one field's name. */
  fieldNameSize: number;
}

/** A parsed form: each field's values in order, and the files. */
export interface ParsedForm {
  fields: Map<string, string[]>;
  files: Upload[];
  /** `multipart:<sha256 of the body>`, for idempotency: the body is not kept to compare it. */
  fingerprint: string;
}

/** A 413 naming the limit that was passed (`details.limit`) and its value. */
export function limitError(limit: string, max: number, extra: Record<string, unknown> = {}): LpError {
  const bytes = limit === "body" || limit.endsWith("_size");
  const what = bytes ? `${limit.replace(/_/g, " ")} limit of ${max} bytes` : `limit of ${max} ${limit.replace(/_/g, " ")}`;
  return new LpError("payload_too_large", `The request passes the ${what}.`, {
    limit,
    ...(bytes ? { limit_bytes: max } : { max }),
    ...extra,
  });
}

/** The multipart parser, imported on the first form body: its modules are not on `lp serve`'s path to listening. */
let busboy: Promise<typeof import("@fastify/busboy")> | undefined;

const malformed = (message: string) =>
  new LpError("validation_error", "The form body could not be parsed.", { issues: [{ path: "body", code: "invalid_multipart", message }] });

/**
 * Streams a multipart or urlencoded body through a parser with limits. Nothing is buffered but the
 * field values and file bytes that pass the limits; the first limit passed ends the read with a 413,
 * and the rest of the body is left unread (never cancelled: the 413 closes the connection instead).
 */
export async function readForm(req: Request, limits: FormLimits, type = req.headers.get("content-type") ?? ""): Promise<ParsedForm> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > limits.bytes) {
    if (req.body) await drainRefused(req.body.getReader());
    throw limitError("body", limits.bytes);
  }
  const { Busboy } = await (busboy ??= import("@fastify/busboy"));
  let parser: BusboyInstance;
  try {
    parser = Busboy({
      headers: { "content-type": type },
      // One more of each than allowed, counted here: the parser reports a count limit only when more data
      // follows in another write, so a body that ends right after would pass silently.
      limits: {
        parts: limits.parts + 1,
        fields: limits.fields + 1,
        fieldSize: limits.fieldSize,
        files: limits.files + 1,
        fileSize: limits.fileSize,
        fieldNameSize: limits.fieldNameSize,
      },
    });
  } catch (error) {
    throw malformed((error as Error).message);
  }
  const fields = new Map<string, string[]>();
  const files: Upload[] = [];
  const counts = { parts: 0, fields: 0, files: 0 };
  /** Counts a part; false (and the 413) once a count passes its limit. */
  const admit = (kind: "fields" | "files") => {
    counts.parts++;
    if (++counts[kind] > limits[kind]) fail(limitError(kind, limits[kind]));
    else if (counts.parts > limits.parts) fail(limitError("parts", limits.parts));
    return !failure;
  };
  let failure: LpError | null = null;
  let finished = false;
  let wake: () => void = () => {};
  const fail = (error: LpError) => {
    failure ??= error;
    wake();
  };
  parser.on("field", (name, value, nameTruncated, valueTruncated) => {
    if (!admit("fields")) return;
    if (nameTruncated) return fail(limitError("field_name_size", limits.fieldNameSize));
    if (valueTruncated) return fail(limitError("field_size", limits.fieldSize, { field: name }));
    const values = fields.get(name);
    if (values) values.push(value); // in place: re-spreading the list per value was quadratic
    else fields.set(name, [value]);
  });
  parser.on("file", (name, stream, filename) => {
    const index = files.length;
    const chunks: Buffer[] = [];
    if (!admit("files")) return void stream.resume();
    stream.on("data", (chunk: Buffer) => {
      if (!failure) chunks.push(chunk);
    });
    stream.on("limit", () => fail(limitError("file_size", limits.fileSize, { path: `${name}.${index}` })));
    stream.on("end", () => {
      if (!failure && !stream.truncated) files[index] = { field: name, filename: filename || "upload", bytes: Buffer.concat(chunks) };
    });
    files.length = index + 1; // keeps the order of files while their bytes arrive
  });
  parser.on("partsLimit", () => fail(limitError("parts", limits.parts)));
  parser.on("filesLimit", () => fail(limitError("files", limits.files)));
  parser.on("fieldsLimit", () => fail(limitError("fields", limits.fields)));
  // Listened for as long as the parser lives: an error after we stopped must not become an uncaught one.
  parser.on("error", (error: unknown) => fail(malformed((error as Error)?.message ?? "malformed form body")));
  parser.on("finish", () => {
    finished = true;
    wake();
  });

  const hash = createHash("sha256");
  const reader = req.body?.getReader();
  let size = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await readChunk(reader);
      if (done) break;
      size += value.byteLength;
      if (size > limits.bytes) fail(limitError("body", limits.bytes));
      if (failure) break;
      hash.update(value);
      const room = parser.write(value);
      if (failure) break;
      if (!room) await new Promise<void>((resolve) => ((wake = resolve), parser.once("drain", resolve)));
    }
  }
  if (failure) {
    // Never cancelled: that would tear the socket down under the server (see drain.ts).
    if (reader) await drainRefused(reader);
    throw failure;
  }
  parser.end();
  while (!finished && !failure) await new Promise<void>((resolve) => (wake = resolve));
  if (failure) throw failure;
  return { fields, files: files.filter(Boolean), fingerprint: `multipart:${hash.digest("hex")}` };
}

/** A field sent once stays a string, a repeated one becomes a list; the schemas decide which may repeat. */
export function toFieldRecord(fields: Map<string, string[]>): Record<string, string | string[]> {
  // Own properties through fromEntries: assigning `out["__proto__"]` would swap the object's prototype.
  return Object.fromEntries([...fields].map(([name, values]) => [name, values.length === 1 ? values[0]! : values]));
}
