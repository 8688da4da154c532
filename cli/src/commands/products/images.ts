import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { UsageError } from "../../runtime/errors.js";

/**
 * `--image` values: http(s) URLs are kept, anything else is a local file opened for upload (the
 * request then goes as multipart). A missing file is a usage error before anything is sent.
 */
export async function toImages(values: string[] | undefined, cwd: string): Promise<Array<string | Blob> | undefined> {
  if (!values?.length) return undefined;
  const { imageFromFile } = await import("@lp/client");
  const out: Array<string | Blob> = [];
  for (const value of values) {
    if (/^https?:\/\//i.test(value)) {
      out.push(value);
      continue;
    }
    const path = resolve(cwd, value);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) throw new UsageError(`--image: '${value}' is neither an http(s) URL nor a readable file.`);
    out.push(await imageFromFile(path));
  }
  return out;
}
