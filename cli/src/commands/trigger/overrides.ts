import { UsageError } from "../../runtime/errors.js";

/** The sections of a trigger fixture that `--override` may reach into. */
export const FIXTURE_SECTIONS = ["product", "product_update", "page", "page_update", "checkout"] as const;

const MAX_OVERRIDES = 100;
const MAX_DEPTH = 8;
const FORBIDDEN = new Set(["__proto__", "prototype", "constructor"]);

/** `19.5`, `true`, `null`, `["a"]` and `"quoted"` are JSON; anything else is the string as typed. */
function toValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One `--override`: `path.to.key=value` split and checked. */
export function toOverride(spec: string): { path: string[]; value: unknown } {
  const at = spec.indexOf("=");
  if (at < 1) throw new UsageError(`--override: '${spec}' must look like section.key=value, e.g. product.title="Blue apron".`);
  const path = spec.slice(0, at).split(".");
  if (path.length < 2 || path.length > MAX_DEPTH || path.some((key) => !/^[A-Za-z0-9_]{1,64}$/.test(key) || FORBIDDEN.has(key))) {
    throw new UsageError(`--override: '${spec.slice(0, at)}' must be a dot path of up to ${MAX_DEPTH} keys (letters, digits, _), e.g. page.options.language.`);
  }
  if (!(FIXTURE_SECTIONS as readonly string[]).includes(path[0])) {
    throw new UsageError(`--override: '${path[0]}' is not a fixture section; use one of ${FIXTURE_SECTIONS.join(", ")}.`);
  }
  return { path, value: toValue(spec.slice(at + 1)) };
}

/**
 * Applies `--override` values to a copy of the fixture, creating objects along the path; a numeric
 * key indexes an array that is already there (`page.checkout_fields.0.label=Name`).
 */
export function applyOverrides<T extends Record<string, unknown>>(fixture: T, specs: string[]): T {
  if (specs.length > MAX_OVERRIDES) throw new UsageError(`--override: at most ${MAX_OVERRIDES}.`);
  const copy = structuredClone(fixture) as Record<string, unknown>;
  for (const spec of specs) {
    const { path, value } = toOverride(spec);
    let node: Record<string, unknown> = copy;
    for (const key of path.slice(0, -1)) {
      const next = node[key];
      if (next === null || typeof next !== "object") node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
    node[path.at(-1)!] = value;
  }
  return copy as T;
}
