import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { check } from "recheck";
import ts from "typescript";

/** The repository root (this file is server/src/testing/). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Source folders whose code runs while a request (or the background work a request starts) handles
 * client input. Tests, test harnesses and the dashboard's browser bundle are left out.
 */
export const REQUEST_PATH_DIRS = ["server/src", "core/src", "packages/contract/src"];
const SKIPPED = [/\.test\.ts$/, /(^|\/)testing\//, /^server\/src\/dashboard\/ui\//];

/** One regular expression to check, and where it comes from. */
export interface SweptRegex {
  source: string;
  flags: string;
  where: string;
}

/** The TypeScript files of the request path, relative to the repository root. */
export function requestPathFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith(".ts") && !path.endsWith(".d.ts") && !SKIPPED.some((re) => re.test(path))) out.push(path);
    }
  };
  for (const dir of REQUEST_PATH_DIRS) walk(dir);
  return out.sort();
}

/**
 * Every regular-expression literal in `files`, and every place that builds one at run time
 * (`new RegExp(...)` or `RegExp(...)`), found by TypeScript's parser rather than by text search, so a
 * slash inside a string or a comment is never taken for a pattern.
 */
export function scanSources(files: string[]): { literals: SweptRegex[]; constructed: string[] } {
  const literals: SweptRegex[] = [];
  const constructed: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(REPO_ROOT, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node) => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const literal = node.getText();
        const end = literal.lastIndexOf("/");
        literals.push({ source: literal.slice(1, end), flags: literal.slice(end + 1), where: where(node) });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === "RegExp") {
        constructed.push(where(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { literals, constructed };
}

/**
 * Every `pattern` (and `patternProperties` key) in a JSON Schema or OpenAPI document, with its JSON
 * pointer. JSON Schema patterns are ECMA-262 with Unicode semantics, so they are checked with `u`.
 */
export function documentPatterns(doc: unknown, pointer = "#"): SweptRegex[] {
  if (Array.isArray(doc)) return doc.flatMap((item, i) => documentPatterns(item, `${pointer}/${i}`));
  if (!doc || typeof doc !== "object") return [];
  const out: SweptRegex[] = [];
  for (const [key, value] of Object.entries(doc)) {
    const at = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (key === "pattern" && typeof value === "string") out.push({ source: value, flags: "u", where: at });
    if (key === "patternProperties" && value && typeof value === "object") {
      for (const name of Object.keys(value)) out.push({ source: name, flags: "u", where: `${at}/${name}` });
    }
    out.push(...documentPatterns(value, at));
  }
  return out;
}

/** What recheck said about one pattern other than `safe`. */
export interface UnsafeRegex extends SweptRegex {
  status: string;
  complexity: string;
  attack: string | null;
}

/**
 * recheck's limits in steps only. Its defaults also stop on time (the whole check, the matching of each attack
 * string, each incubation), and a limit of time reached counts as an attack that worked or as "unknown": on a
 * loaded machine a linear pattern was once reported vulnerable (`,(?=\s*https?:\/\/)`) and another unknown. The
 * step limits (`attackLimit`, `incubationLimit`) and the fixed seed give the same verdict on any machine; the test's
 * own timeout bounds the time.
 */
const RECHECK_PARAMS = { timeout: null, attackTimeout: null, incubationTimeout: null } as const;

/**
 * Runs recheck on each distinct pattern (the automaton checker where it applies, fuzzing otherwise) and
 * returns those whose verdict is not `safe`: `vulnerable`, and `unknown` too (a pattern recheck cannot
 * judge is not known to be linear).
 */
export async function findUnsafe(regexes: SweptRegex[]): Promise<UnsafeRegex[]> {
  const distinct = new Map<string, SweptRegex[]>();
  for (const regex of regexes) {
    const key = `/${regex.source}/${regex.flags}`;
    distinct.set(key, [...(distinct.get(key) ?? []), regex]);
  }
  const unsafe: UnsafeRegex[] = [];
  for (const group of distinct.values()) {
    const { source, flags } = group[0]!;
    const result = await check(source, flags, RECHECK_PARAMS);
    if (result.status === "safe") continue;
    const complexity = result.status === "vulnerable" ? result.complexity.type : result.error.kind;
    const attack = result.status === "vulnerable" ? result.attack.pattern : null;
    for (const regex of group) unsafe.push({ ...regex, status: result.status, complexity, attack });
  }
  return unsafe;
}
