import { access, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, posix, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { bundledAsset } from "./bundled-assets.js";
import { UsageError } from "./errors.js";

/** How a path to a sample inside the single executable starts: it names an asset, not a file on disk. */
const BUNDLED = "lp-executable:";

/**
 * Where the sample data is: `dist/fixtures` beside the built CLI (the published package carries it), the
 * assets of the single executable, or the repository's `fixtures/` when run from sources. Resolved from
 * this module or the executable, never the current directory; `flag` names the option that overrides it.
 * Read what it returns with {@link readFixtureText} and {@link openFixtureImage}.
 */
export async function findFixture(name: string, flag: string): Promise<string> {
  if (bundledAsset(`fixtures/${name}`)) return `${BUNDLED}fixtures/${name}`;
  // The repository's folder only from sources (cli/src/runtime): an installed package never looks outside itself.
  const places = import.meta.url.endsWith(".ts") ? ["../../../fixtures/"] : ["./fixtures/"];
  for (const relative of places) {
    const candidate = join(fileURLToPath(new URL(relative, import.meta.url)), name);
    if (await access(candidate).then(() => true, () => false)) return candidate;
  }
  throw new UsageError(`${flag}: the sample ${name} is missing from this installation of lp; pass ${flag} FILE.`);
}

/** The text of a fixture file: a path on disk, or one {@link findFixture} gave for a sample in the executable. */
export async function readFixtureText(path: string): Promise<string> {
  if (!path.startsWith(BUNDLED)) return readFile(path, "utf8");
  const bytes = bundledAsset(path.slice(BUNDLED.length));
  if (!bytes) throw new Error(`${path} is not in this executable`);
  return new TextDecoder().decode(bytes);
}

/** An image to upload, by path (on disk, or a sample in the executable), its type from the extension. */
export async function openFixtureImage(path: string): Promise<File> {
  const { imageFromFile } = await import("@lp/client");
  if (!path.startsWith(BUNDLED)) return imageFromFile(path);
  const bytes = bundledAsset(path.slice(BUNDLED.length));
  if (!bytes) throw new Error(`${path} is not in this executable`);
  // The executable carries the PNG samples only (the build takes fixtures/images/*.png).
  return new File([bytes], basename(path), { type: path.endsWith(".png") ? "image/png" : "application/octet-stream" });
}

/**
 * The images of a fixture product: http(s) URLs are kept, other entries are files relative to the
 * fixture file, opened for a multipart upload (so the sample pages show real pictures offline).
 */
export async function toFixtureImages(images: unknown, fixtureFile: string): Promise<Array<string | Blob> | undefined> {
  if (images === undefined) return undefined;
  if (!Array.isArray(images)) throw new UsageError(`${fixtureFile}: images must be an array of URLs or file paths.`);
  const out: Array<string | Blob> = [];
  for (const image of images) {
    if (typeof image !== "string") throw new UsageError(`${fixtureFile}: each image is a URL or a file path, got ${JSON.stringify(image)}.`);
    if (/^https?:\/\//i.test(image)) {
      out.push(image);
      continue;
    }
    const path = fixtureFile.startsWith(BUNDLED) ? BUNDLED + posix.join(posix.dirname(fixtureFile.slice(BUNDLED.length)), image) : resolve(dirname(fixtureFile), image);
    const present = path.startsWith(BUNDLED) ? bundledAsset(path.slice(BUNDLED.length)) !== null : (await stat(path).catch(() => null))?.isFile();
    if (!present) throw new UsageError(`${fixtureFile}: image '${image}' is not a file (paths are relative to the fixture file).`);
    out.push(await openFixtureImage(path));
  }
  return out;
}
