import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRawAsset } from "node:sea";

/**
 * `@resvg/resvg-js` inside the single executable, where `require()` loads built-in modules only: the same
 * package's native binary for the executable's platform is one of its assets (`resvg.node`), written to a
 * private temporary folder and loaded from there with `process.dlopen`. The executable's bundle takes this
 * module wherever the code imports `@resvg/resvg-js` (scripts/exe/bundle.mjs); it exports what lp uses of
 * it, `Resvg`, wrapped as the package's own index.js wraps it (options go to the binary as JSON).
 */

interface RenderedImage {
  asPng(): Uint8Array;
}
interface NativeResvg {
  render(): RenderedImage;
}
interface Binding {
  Resvg: new (svg: string | Uint8Array, options?: string) => NativeResvg;
}

function loadBinding(): Binding {
  // mkdtemp makes a folder only this user can enter, so no one else can put a library in its place.
  const dir = mkdtempSync(join(tmpdir(), "lp-resvg-"));
  const file = join(dir, "resvg.node");
  try {
    writeFileSync(file, new Uint8Array(getRawAsset("resvg.node") as ArrayBuffer), { mode: 0o700 });
    const module = { exports: {} as Binding };
    process.dlopen(module, file);
    return module.exports;
  } finally {
    // A loaded library stays mapped once its file is gone (Linux, macOS); Windows keeps a loaded DLL's file
    // open, so there the folder stays in the user's temp folder.
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Left for the system's temp cleaning.
    }
  }
}

const binding = loadBinding();

/** The rasteriser of `@resvg/resvg-js`: `new Resvg(svg, options).render().asPng()`. */
export class Resvg extends binding.Resvg {
  constructor(svg: string | Uint8Array, options?: object) {
    super(svg, options === undefined ? undefined : JSON.stringify(options));
  }
}
