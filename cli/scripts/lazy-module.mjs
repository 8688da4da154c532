/**
 * An esbuild plugin that makes a module load on first use: an import of `name` gets a stand-in whose
 * properties, when first read, `require()` the real module. listhen imports node-forge at its top level, for
 * HTTPS certificates lp never asks it for; its 750 KB were a tenth of the time to the first 200.
 *
 * With `bundle: false` (the npm package) the real module stays a dependency, resolved at run time from
 * node_modules; with `bundle: true` (the single executable, which has no node_modules) esbuild bundles it,
 * and its `require()` runs the bundled module's body only then.
 *
 * @param {string} name the module's specifier, e.g. "node-forge"
 * @param {{ bundle: boolean }} options
 * @returns {import("esbuild").Plugin}
 */
export function lazyModule(name, { bundle }) {
  const namespace = `lazy-${name}`;
  const filter = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  return {
    name: `lazy-${name}`,
    setup(build) {
      build.onResolve({ filter }, async (args) => {
        if (args.pluginData?.real) return undefined;
        if (args.namespace !== namespace) return { path: name, namespace, pluginData: { resolveDir: args.resolveDir } };
        if (!bundle) return { path: name, external: true };
        const real = await build.resolve(name, { kind: "require-call", resolveDir: args.pluginData.resolveDir, pluginData: { real: true } });
        return real.errors.length > 0 ? { errors: real.errors } : { path: real.path };
      });
      build.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `let real;\nexport default new Proxy({}, { get: (_, key) => (real ??= require(${JSON.stringify(name)}))[key] });\n`,
        loader: "js",
        pluginData: args.pluginData,
      }));
    },
  };
}
