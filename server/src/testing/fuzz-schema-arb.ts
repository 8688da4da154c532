import fc from "fast-check";
import { z } from "zod";

/** The parts of a JSON Schema (as `z.toJSONSchema` writes them) the fuzzer reads. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/**
 * The JSON Schema of the input side of a zod schema; refinements and transforms become "anything". Named
 * schemas (`.meta({ id })`, such as Color) are put back in place of their `$ref`, so they generate as themselves.
 */
export const toJsonSchema = (schema: z.ZodType): JsonSchema => {
  const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const defs = out.$defs ?? {};
  return JSON.parse(JSON.stringify(out), (_key, value) => {
    if (value === null || typeof value !== "object" || typeof value.$ref !== "string" || !value.$ref.startsWith("#/$defs/")) return value;
    const { $ref, ...rest } = value as { $ref: string };
    return { ...defs[$ref.slice("#/$defs/".length)], ...rest };
  }) as JsonSchema;
};

/** Strings that break naive parsers: number-like text, prototype names, escapes, bidi and lone surrogates. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("NaN", "Infinity", "-Infinity", "-0", "1e309", "0x1F", "1_000", " 12 ", "null", "undefined", "true", "[]", "{}"),
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "%00", "\u0000", "\ud800", "\u202eevil", "🦄‍🔥", "Ω≈ç√∫", "ｆｕｌｌ"),
  fc.constantFrom("<script>alert(1)</script>", "'; DROP TABLE x;--", "../../etc/passwd", "..%2f..%2f", "${7*7}", "{{7*7}}", "", " "),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.integer({ min: 1, max: 5 }).map((n) => "x".repeat(10 ** n)),
);

/** Numbers at the edges: negative, huge, tiny, unsafe integers, fractions where integers are expected. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-1, -0, 0, 0.5, 3.5, 1e308, -1e308, 5e-324, 2 ** 31, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2, 1_000_000_001),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Arrays or objects nested `depth` levels deep. */
export const toDeep = (depth: number, object: boolean): unknown => {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = object ? { a: value } : [value];
  return value;
};

/** A value of some other type than expected. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, [], {}, [null], { "": "" }),
  fc.integer({ min: 50, max: 3000 }).chain((d) => fc.boolean().map((o) => toDeep(d, o))),
);

/**
 * Fields that name fixtures get placeholders most of the time (`@@own.product`), which the request builder
 * replaces with the ids of the moment: random ids would rarely get past a lookup.
 */
const FIXTURE_REFS: Record<string, unknown[]> = {
  product_id: ["@@own.product", "@@own.product", "@@other.product"],
  account_id: ["@@own.account", "@@own.account", "@@other.account"],
  account_ids: [["@@own.account"], ["@@own.account", "@@other.account"]],
};

/** Strings that satisfy common refinements zod cannot put in a JSON Schema (colours, fonts, currencies). */
const HINTS = ["#ff0000", "#0af", "red", "rgb(1, 2, 3)", "hsl(120, 50%, 50%)", "Georgia, serif", "en", "fr-CA", "EUR", "product.created", "Lamp"];

/**
 * Strings of astral letters (two UTF-16 units each, `\p{L}`) more than half as long as `maxLength` allows
 * in code points: within the document's bound, which counts code points, past the server's, which counts
 * UTF-16 units. Rare, so most requests still reach the checks behind the first field.
 */
function astralNearMax(s: JsonSchema, regex: RegExp | null): fc.Arbitrary<string> | null {
  const max = s.maxLength;
  // Long bounds are left out: thousands of code points per field would slow every run for the same finding.
  if (max === undefined || max < 2 || max > 1000) return null;
  const min = Math.max(s.minLength ?? 0, Math.floor(max / 2) + 1);
  // Only where such letters can match the pattern at all: a filter that never passes would never end.
  if (regex && !regex.test("\u{1d41a}".repeat(min))) return null;
  // Mathematical bold small a to z: letters outside the Basic Multilingual Plane.
  return fc.integer({ min, max }).chain((n) => fc.array(fc.integer({ min: 0x1d41a, max: 0x1d433 }), { minLength: n, maxLength: n }).map((cps) => String.fromCodePoint(...cps)));
}

/** A regex of the document: with the `u` flag, as JSON Schema reads patterns (`\p{L}` is a letter, not `p{L}`). */
function documentRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return new RegExp(pattern);
  }
}

function stringArb(s: JsonSchema): fc.Arbitrary<unknown> {
  if (s.format === "uri" || s.format === "url") return fc.webUrl({ validSchemes: ["http", "https"] });
  if (s.format === "uuid") return fc.uuid();
  if (s.format === "date-time") return fc.date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === "email") return fc.emailAddress();
  if (s.pattern) {
    try {
      const regex = documentRegex(s.pattern);
      const matching = fc.stringMatching(regex).filter((v) => [...v].length <= (s.maxLength ?? 10_000));
      const near = astralNearMax(s, regex);
      return near ? fc.oneof({ arbitrary: matching, weight: 30 }, { arbitrary: near.filter((v) => regex.test(v)), weight: 1 }) : matching;
    } catch {
      // A pattern fast-check cannot read: fall through to plain strings.
    }
  }
  const near = astralNearMax(s, null);
  const minLength = s.minLength ?? 0;
  const plain = fc.string({ minLength, maxLength: Math.max(minLength, Math.min(s.maxLength ?? 40, 40)) });
  const arbs = [{ arbitrary: plain, weight: 15 }, { arbitrary: fc.constantFrom(...HINTS), weight: 15 }];
  return fc.oneof(...arbs, ...(near ? [{ arbitrary: near as fc.Arbitrary<string>, weight: 1 }] : []));
}

/**
 * The alternatives of an object whose `oneOf` only says which keys are required (page creation:
 * `product` or `product_id`): each alternative requires its key and leaves the others' keys out, so the
 * generator meets "exactly one" instead of hoping to.
 */
export function toVariants(s: JsonSchema): JsonSchema[] {
  const branches = s.oneOf;
  if (s.type !== "object" || !branches?.every((b) => Object.keys(b).join() === "required")) return [s];
  const exclusive = new Set(branches.flatMap((b) => b.required ?? []));
  return branches.map((b) => {
    const keep = new Set(b.required);
    const properties = Object.fromEntries(Object.entries(s.properties ?? {}).filter(([k]) => !exclusive.has(k) || keep.has(k)));
    return { ...s, oneOf: undefined, properties, required: [...new Set([...(s.required ?? []), ...keep])] };
  });
}

/**
 * A "valid-ish" arbitrary for a JSON Schema: values of the right shape, within the declared bounds, that
 * refinements may still reject. Unknown or unrepresentable parts become any JSON value.
 */
export function toArbitrary(s: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || typeof s !== "object" || depth > 8) return fc.jsonValue({ maxDepth: 1 });
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  const variants = toVariants(s);
  if (variants.length > 1) return fc.oneof(...variants.map((v) => toArbitrary(v, depth)));
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => toArbitrary(a, depth + 1)));
  if (s.allOf?.length) return toArbitrary(s.allOf[0], depth + 1);
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => toArbitrary({ ...s, type }, depth)));
  switch (s.type) {
    case "string":
      return stringArb(s);
    case "integer":
      return fc.integer({ min: s.minimum ?? (s.exclusiveMinimum ?? -1001) + 1, max: s.maximum ?? (s.exclusiveMaximum ?? 1001) - 1 });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = s.minItems ?? 0;
      return fc.array(toArbitrary(s.items, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)) });
    }
    case "object": {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, toPropertyArb(k, v, depth + 1)]));
      // Each optional key appears about one time in three, so "exactly one of" rules are often met.
      const required = new Set(s.required ?? []);
      const optional = Object.keys(props).filter((k) => !required.has(k));
      const record = fc
        .tuple(fc.record(props), fc.tuple(...optional.map(() => fc.nat({ max: 2 }))))
        .map(([full, flags]) => Object.fromEntries(Object.entries(full).filter(([k]) => required.has(k) || flags[optional.indexOf(k)] === 0)));
      if (typeof s.additionalProperties !== "object") return record;
      const extra = fc.dictionary(fc.string({ maxLength: 12 }), toArbitrary(s.additionalProperties, depth + 1), { maxKeys: 3 });
      return fc.tuple(extra, record).map(([a, b]) => ({ ...a, ...b }));
    }
  }
  return fc.jsonValue({ maxDepth: 2 });
}

/** Plausible values for fields whose rules live in refinements, recognised by their names. */
const NAME_HINTS: [RegExp, string[]][] = [
  [/colou?r$/i, ["#ff0000", "#0af", "#11223344", "red", "rgb(1, 2, 3)", "hsl(120, 50%, 50%)"]],
  [/font/i, ["Georgia, serif", "'Inter', sans-serif", "system-ui"]],
  [/currency/i, ["EUR", "USD", "JPY"]],
];

function toPropertyArb(name: string, s: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const own = toArbitrary(s, depth);
  const refs = FIXTURE_REFS[name] ?? NAME_HINTS.find(([re]) => re.test(name))?.[1];
  return refs ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...refs) }, { weight: 1, arbitrary: own }) : own;
}

/** Sets an own, enumerable property, even one named `__proto__`. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Op = "replace" | "delete" | "proto" | "extra" | "huge-array";

/** Applies one mutation at a spot chosen by `picks`, on a copy of `value`. */
function applyMutation(value: unknown, picks: number[], op: Op, replacement: unknown): unknown {
  if (value === null || typeof value !== "object") return replacement;
  const copy: any = Array.isArray(value) ? [...value] : Object.defineProperties({}, Object.getOwnPropertyDescriptors(value));
  const keys = Object.keys(copy);
  const [pick = 0, ...rest] = picks;
  const key = keys.length ? keys[pick % keys.length] : undefined;
  if (key !== undefined && rest.length > 0 && pick % 3 === 0 && copy[key] !== null && typeof copy[key] === "object") {
    setOwn(copy, key, applyMutation(copy[key], rest, op, replacement));
    return copy;
  }
  if (op === "huge-array") return Array.isArray(copy) ? Array.from({ length: 5000 }, (_, i) => copy[i % Math.max(copy.length, 1)] ?? i) : replacement;
  if (op === "proto") setOwn(copy, ["__proto__", "constructor", "prototype"][pick % 3], { polluted: true, toString: "x" });
  else if (op === "extra") setOwn(copy, `unexpected_${pick % 7}`, replacement);
  else if (op === "delete" && key !== undefined) delete copy[key];
  else if (key !== undefined) setOwn(copy, key, replacement);
  else return replacement;
  return copy;
}

/** `valid`, then one mutation: a wrong type, a missing or unknown key, a `__proto__` key, a huge array. */
export function toMutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const op = fc.constantFrom<Op>("replace", "replace", "delete", "proto", "extra", "huge-array");
  return fc
    .tuple(valid, fc.array(fc.nat({ max: 30 }), { minLength: 1, maxLength: 4 }), op, wrongValue)
    .map(([value, picks, which, replacement]) => applyMutation(value, picks, which, replacement));
}

/** Valid-ish values of `schema`, mutated ones, and anything at all, in that order of weight. */
export function toBodyValue(schema: z.ZodType | undefined): fc.Arbitrary<unknown> {
  const valid = schema ? toArbitrary(toJsonSchema(schema)) : fc.jsonValue({ maxDepth: 3 });
  return fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: toMutated(valid), weight: 3 }, { arbitrary: wrongValue, weight: 1 });
}
