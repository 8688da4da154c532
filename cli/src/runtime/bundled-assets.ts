// Through getBuiltinModule: the npm build (tsup) drops the `node:` of static imports, and "sea" has no other name.
const { getAsset, isSea } = process.getBuiltinModule("node:sea");

/**
 * An asset of the single executable (`npm run build:exe` puts the sample data and the dashboard's UI in it
 * under their paths in cli/dist, e.g. `fixtures/products.json`), or null when lp is not running as one or
 * has no such asset. From npm, everything is a file beside the modules instead.
 */
export function bundledAsset(key: string): ArrayBuffer | null {
  if (!isSea()) return null;
  try {
    return getAsset(key);
  } catch {
    // getAsset throws for a key the executable does not hold.
    return null;
  }
}
