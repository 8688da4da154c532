/**
 * Writes the lockfile of a fresh project from this repository's own lockfile, so `npm install
 * --prefer-offline` installs the same versions from npm's cache (filled by the repository's `npm ci`)
 * instead of resolving them again against a registry.
 */

/** One `packages` entry of package-lock.json (v3). */
export interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
}

/** A direct dependency of the new project: its name, and the repository folder it is resolved from. */
export interface Root {
  name: string;
  /** "" for the repository root, or a workspace folder such as "cli" (its own node_modules first). */
  from: string;
}

/** Where `name` resolves from lock path `from`, as Node walks up through node_modules folders. */
function resolveIn(has: (path: string) => boolean, from: string, name: string): string | null {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (has(candidate)) return candidate;
    if (!base) return null;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut === -1 ? "" : base.slice(0, cut);
  }
}

/** The edges a package needs installed: dependencies, optional ones, and peers that are not optional. */
function needs(entry: LockEntry): string[] {
  const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => !entry.peerDependenciesMeta?.[n]?.optional);
  return [...Object.keys(entry.dependencies ?? {}), ...Object.keys(entry.optionalDependencies ?? {}), ...peers];
}

/**
 * The `packages` of the new lockfile for `roots` (third-party packages only): each package of the
 * repository's lockfile that they reach, laid out again so that Node's resolution from every new location
 * finds the same version it found in the repository. `skip` names packages supplied otherwise (tarballs).
 */
export function layoutFrom(source: Record<string, LockEntry>, roots: Root[], skip: (name: string) => boolean): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const at = new Map<string, string>(); // new location -> source path
  const queue: Array<{ location: string; source: string }> = [];
  const place = (location: string, sourcePath: string) => {
    at.set(location, sourcePath);
    const { dev: _d, devOptional: _o, peer: _p, ...entry } = source[sourcePath]!;
    out[location] = entry;
    queue.push({ location, source: sourcePath });
  };
  /** What `name` resolves to from `location` in the layout built so far. */
  const current = (location: string, name: string): string | null => resolveIn((p) => at.has(p), location, name);
  const inSource = (p: string) => source[p] !== undefined && !source[p]!.link;
  for (const root of roots) {
    const found = resolveIn(inSource, root.from, root.name);
    if (!found) throw new Error(`${root.name} is not in the repository's lockfile: run npm install at the root.`);
    const top = `node_modules/${root.name}`;
    if (!at.has(top)) place(top, found);
    else if (at.get(top) !== found) throw new Error(`two versions of ${root.name} asked for at the top`);
  }
  while (queue.length) {
    const { location, source: sourcePath } = queue.shift()!;
    for (const name of needs(source[sourcePath]!)) {
      if (skip(name)) continue;
      const wanted = resolveIn(inSource, sourcePath, name);
      if (!wanted) continue; // an optional dependency this platform's lockfile left out
      const have = current(location, name);
      if (have && at.get(have) === wanted) continue;
      const top = `node_modules/${name}`;
      place(!have && !at.has(top) ? top : `${location}/node_modules/${name}`, wanted);
    }
  }
  return out;
}
