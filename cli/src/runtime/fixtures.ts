import { access, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./errors.js";

/**
 * Where the sample data is: `dist/fixtures` beside the built CLI (the published package carries it), or
 * the repository's `fixtures/` when run from sources. Resolved from this module, never the current
 * directory; `flag` names the option that overrides it.
 */
export async function findFixture(name: string, flag: string): Promise<string> {
  // The repository's folder only from sources (cli/src/runtime): an installed package never looks outside itself.
  const places = import.meta.url.endsWith(".ts") ? ["../../../fixtures/"] : ["./fixtures/"];
  for (const relative of places) {
    const candidate = join(fileURLToPath(new URL(relative, import.meta.url)), name);
    if (await access(candidate).then(() => true, () => false)) return candidate;
  }
  throw new UsageError(`${flag}: the sample ${name} is missing from this installation of lp; pass ${flag} FILE.`);
}

/**
 * The images of a fixture product: http(s) URLs are kept, other entries are files relative to the
 * fixture file, opened for a multipart upload (so the sample pages show real pictures offline).
 */
export async function toFixtureImages(images: unknown, fixtureFile: string): Promise<Array<string | Blob> | undefined> {
  if (images === undefined) return undefined;
  if (!Array.isArray(images)) throw new UsageError(`${fixtureFile}: images must be an array of URLs or file paths.`);
  const { imageFromFile } = await import("@lp/client");
  const out: Array<string | Blob> = [];
  for (const image of images) {
    if (typeof image !== "string") throw new UsageError(`${fixtureFile}: each image is a URL or a file path, got ${JSON.stringify(image)}.`);
    if (/^https?:\/\//i.test(image)) {
      out.push(image);
      continue;
    }
    const path = resolve(dirname(fixtureFile), image);
    if (!(await stat(path).catch(() => null))?.isFile()) throw new UsageError(`${fixtureFile}: image '${image}' is not a file (paths are relative to the fixture file).`);
    out.push(await imageFromFile(path));
  }
  return out;
}
