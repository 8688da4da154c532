import type { z } from "zod";

type Issue = z.core.$ZodIssue & { input?: unknown };
type Path = ReadonlyArray<PropertyKey>;

/** `["data", 3, "price"]` → `data[3].price`; the root is `body`. */
export function toPath(path: Path, prefix: Path = []): string {
  const all = [...prefix, ...path];
  if (all.length === 0) return "body";
  return all.map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`)).join("");
}

/** The JSON type of a value, as a reader of the wire sees it. */
export function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** A value in a problem line: short, and never more than a few dozen characters. */
export function show(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * One line per departure from `schema`, naming the field path and what was expected against what came:
 * `data.preview_image_url missing`, `data.price: expected number, got string`. `keep` drops issues
 * (list items that are not the run's own, which the report never describes).
 */
export function schemaProblems(value: unknown, schema: z.ZodType, options: { prefix?: Path; keep?: (path: Path) => boolean } = {}): string[] {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return [];
  const issues = flatten(result.error.issues as Issue[]).filter((issue) => options.keep?.(issue.path) ?? true);
  return [...new Set(issues.map((issue) => describe(issue, options.prefix ?? [])))];
}

/** A union's issues are its branches' issues: the closest branch says the most. */
function flatten(issues: Issue[]): Issue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "invalid_union" || !issue.errors.length) return [issue];
    const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0] as Issue[];
    return flatten(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as Issue));
  });
}

function describe(issue: Issue, prefix: Path): string {
  const path = toPath(issue.path, prefix);
  const input = issue.input;
  switch (issue.code) {
    case "invalid_type":
      return input === undefined ? `${path} missing` : `${path}: expected ${issue.expected}, got ${typeOf(input)}`;
    case "invalid_format":
      return `${path}: expected ${issue.format === "regex" ? `to match ${issue.pattern}` : `a ${issue.format}`}, got ${show(input)}`;
    case "invalid_value":
      return `${path}: expected ${issue.values.map((v) => show(v)).join(" or ")}, got ${show(input)}`;
    case "too_small":
    case "too_big":
      return `${path}: ${issue.message.replace(/^Too (small|big): /, "")}, got ${show(input)}`;
    case "unrecognized_keys":
      return `${path}: unexpected ${issue.keys.join(", ")}`;
    default:
      return `${path}: ${issue.message}`;
  }
}
