import fc from "fast-check";
import type { z } from "zod";
import type { RouteDef } from "../http/route.js";
import { hostileString, toArbitrary, toBodyValue, toJsonSchema, toMutated, wrongValue } from "./fuzz-schema-arb.js";

/** A path parameter: a fixture of the caller's tenant or the other one, or a literal (hostile or random). */
export type IdPick = { fixture: "own" | "other" } | { literal: string };
/** Credentials, resolved against the route's plane when the request is built. */
export type AuthPick = "valid" | "other-tenant" | "scoped" | "none" | "cross-plane" | { raw: string };
/** A query value: text, or a real cursor from a listing (as is, or tampered with). */
export type QueryValue = string | { cursor: "real" | "tampered" };
/** An uploaded file. */
export interface FilePick {
  field: string;
  name: string;
  type: string;
  bytes: Uint8Array;
}
/** A request body. */
export type BodyPick =
  | { kind: "none" }
  | { kind: "json"; value: unknown; type: string }
  | { kind: "text"; text: string; type: string | null }
  | { kind: "multipart"; fields: [string, string][]; files: FilePick[] }
  | { kind: "huge"; type: string };

/** One fuzzed request, symbolic: fixtures are looked up when it is sent, so a reset never invalidates it. */
export interface FuzzSpec {
  method: string;
  params: IdPick[];
  query: { pairs: [string, QueryValue][]; raw: string | null };
  auth: AuthPick;
  scopeIndex: number;
  idempotencyKey: string | null;
  simulate: string | null;
  body: BodyPick;
}

/** The parameters of a route path, in order (`:id`, `**:path`). */
export const toParamNames = (path: string) => path.match(/\*\*:\w+|:\w+/g) ?? [];

/** Header-safe text: printable Latin-1, which is all a header value may hold. */
export const headerText = (maxLength = 60) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength });

const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.constantFrom("..%2f..%2fetc%2fpasswd", "..", ".", "%2e%2e", "a%2Fb", "%2F", "%5C", "%00", "%zz", "%", "__proto__", "constructor"),
  fc.constantFrom("null", "%20", "we_0123456789abcdef01234567", "dlv_0123456789abcdef", "app_x", "{00000000-0000-4000-8000-000000000000}"),
  fc.constantFrom("%E2%80%AE", "%C0%AE%C0%AE", "a;b=c", "x.svg", "products/x/y.png", "acct_dev", "-", "_"),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 30 }).map((s) => s.replace(/[#?]/g, "%23")),
  fc.integer({ min: 65, max: 5_000 }).map((n) => "a".repeat(n)),
  fc.stringMatching(/^[a-z]{2,4}_[0-9a-f]{8,40}$/),
);

const toIdPick = (own: number, other: number, literal: number): fc.Arbitrary<IdPick> =>
  fc.oneof(
    { weight: own, arbitrary: fc.constant({ fixture: "own" as const }) },
    { weight: other, arbitrary: fc.constant({ fixture: "other" as const }) },
    { weight: literal, arbitrary: hostileId.map((literal) => ({ literal })) },
  );
/** The account of the path is mostly the caller's, so that requests get past tenancy to the handler. */
const accountPick = toIdPick(12, 1, 1);
const idPick = toIdPick(6, 1, 3);

const QUERY_HOSTILE: Record<string, fc.Arbitrary<string>> = {
  per_page: fc.constantFrom("0", "101", "-1", "1e3", "NaN", "abc", "20", "", "1.5", " 5", "0x10", "100", "1", "9".repeat(400)),
  sort: fc.oneof(fc.constantFrom("-", "title", "-price", "slug", "updated_at", "-created_at", "created_at,title", "__proto__"), hostileString),
  created_after: fc.constantFrom("2026-02-30", "2026-13-01", "yesterday", "2026-01-01T00:00:00Z", "2026-01-01", "0000-00-00", "+275760-09-13"),
  created_before: fc.constantFrom("2099-12-31T23:59:59.999+14:00", "2026-03-01T10:00:00.000Z", "2026-03-01T25:00Z", "1969-12-31"),
  cursor: fc.oneof(fc.base64String({ maxLength: 80 }), hostileString),
};
const COMMON_NAMES = ["per_page", "cursor", "sort", "q", "created_after", "created_before", "status", "product_type", "event_type", "product_id"];
const RAW_QUERIES = ["__proto__=1", "__proto__=a&__proto__=b", "hasOwnProperty=x", "per_page=%zz", "%", "&&==&", "q=%E0%A4%A", "per_page[]=1", "__proto__[polluted]=1", "constructor[prototype][polluted]=1", "sort=-", "cursor=", "per_page=1&per_page=2"];

function queryArb(route: RouteDef): fc.Arbitrary<FuzzSpec["query"]> {
  const props = route.query ? (toJsonSchema(route.query).properties ?? {}) : {};
  const names = [...new Set([...Object.keys(props), ...COMMON_NAMES])];
  const value = (name: string): fc.Arbitrary<QueryValue> => {
    const valid = toArbitrary(props[name] ?? { type: "string" }).map((v) => (typeof v === "string" ? v : (JSON.stringify(v) ?? "")));
    const options: fc.WeightedArbitrary<QueryValue>[] = [{ weight: 3, arbitrary: valid }, { weight: 2, arbitrary: QUERY_HOSTILE[name] ?? hostileString }];
    if (name === "cursor") options.push({ weight: 3, arbitrary: fc.constantFrom({ cursor: "real" as const }, { cursor: "tampered" as const }) });
    return fc.oneof(...options);
  };
  const pair = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...names).chain((name) => value(name).map((v) => [name, v] as [string, QueryValue])) },
    { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 10 }), hostileString) },
  );
  const raw = fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...RAW_QUERIES) });
  return fc.record({ pairs: fc.array(pair, { maxLength: route.method === "GET" ? 4 : 1 }), raw });
}

const authPick: fc.Arbitrary<AuthPick> = fc.oneof(
  { weight: 12, arbitrary: fc.constant("valid" as const) },
  { weight: 1, arbitrary: fc.constantFrom("other-tenant" as const, "cross-plane" as const) },
  { weight: 2, arbitrary: fc.constantFrom("scoped" as const, "none" as const) },
  {
    weight: 2,
    arbitrary: fc
      .oneof(
        fc.constantFrom("Bearer", "Bearer ", "bearer lp_aaaaaaaaaaaaaaaaaaaa", "Basic", "Basic Og==", "Basic YXBwX3g6", "Token abc", "Bearer lpadm_wrong"),
        fc.constantFrom(`Bearer ${"a".repeat(5000)}`, `Basic ${"QUFB".repeat(3000)}`, "Basic OmxwX3NlY3JldA==", "Basic\tZm9vOmJhcg=="),
        headerText(),
        headerText().map((s) => `Bearer ${s}`),
        headerText().map((s) => `Basic ${Buffer.from(s, "latin1").toString("base64")}`),
      )
      .map((raw) => ({ raw })),
  },
);

const idempotencyKey = fc.oneof(
  { weight: 5, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom("", "fuzz-fixed-1", "fuzz-fixed-2", "k".repeat(255), "k".repeat(256)) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: 1, max: 1000 }).map((n) => "k".repeat(n)), headerText(300)) },
);

const simulate = fc.oneof(
  { weight: 8, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom("deployment_failed", "generation_failed", "slow") },
  { weight: 1, arbitrary: headerText(20) },
);

const MAGIC = [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0xff, 0xd8, 0xff], [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], [], [...Buffer.from("<svg xmlns=\"http://www.w3.org/2000/svg\">")]];
const fileArb: fc.Arbitrary<FilePick> = fc.record({
  field: fc.constantFrom("images", "images", "images", "file", "title", "__proto__"),
  name: fc.oneof(fc.constantFrom("a.png", "x.svg", "../../evil.png", "", "ünï.gif", `${"a".repeat(300)}.png`), fc.string({ maxLength: 20 })),
  type: fc.constantFrom("image/png", "application/octet-stream", "text/plain", "image/svg+xml", ""),
  bytes: fc.tuple(fc.constantFrom(...MAGIC), fc.uint8Array({ maxLength: 1024 })).map(([head, rest]) => Uint8Array.from([...head, ...rest])),
});
/** One file just over the 10 MiB image limit, made once. */
const OVERSIZE = new Uint8Array(10 * 1024 * 1024 + 1).fill(7);

const toField = (v: unknown) => (typeof v === "string" ? v : v === null || v === undefined ? "" : Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join(",") : JSON.stringify(v));

/** The JSON schema a route declares for its body (internal routes too: the pipeline validates them all alike). */
const bodySchemaOf = (route: RouteDef): z.ZodType | undefined => route.body?.schema;

function multipartArb(route: RouteDef): fc.Arbitrary<BodyPick> {
  const schema = route.body?.transport === "json-or-form" ? route.body.form : bodySchemaOf(route);
  const valid = schema ? toArbitrary(toJsonSchema(schema)) : fc.dictionary(fc.string({ maxLength: 8 }), fc.string());
  const fields = fc.oneof(valid, toMutated(valid)).map((v) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.entries(v).map(([k, x]) => [k, toField(x)] as [string, string]) : [["value", toField(v)] as [string, string]],
  );
  const files: fc.Arbitrary<FilePick[]> = fc.oneof(
    { weight: 20, arbitrary: fc.array(fileArb, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant<FilePick[]>([{ field: "images", name: "big.png", type: "image/png", bytes: OVERSIZE }]) },
  );
  return fc.record({ kind: fc.constant("multipart" as const), fields, files });
}

const JSON_TYPES = ["application/json", "application/json", "application/json; charset=utf-8", "application/merge-patch+json", "APPLICATION/JSON"];
const WRONG_TYPES = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "application/jsonx", "multipart/form-data", "multipart/form-data; boundary=zzz", "image/png"];
const BAD_JSON = ["{", '{"a":', "nul", "'x'", '{"a":1}}', "\u0000", "[1,]", "{\"title\": NaN}", "\ufeff{}", "1".repeat(400), "[".repeat(5000)];

function bodyArb(route: RouteDef): fc.Arbitrary<BodyPick> {
  const takesBody = route.body !== undefined;
  const json = fc.record({ kind: fc.constant("json" as const), value: toBodyValue(bodySchemaOf(route)), type: fc.constantFrom(...JSON_TYPES) });
  const text = fc.record({
    kind: fc.constant("text" as const),
    text: fc.oneof(fc.constantFrom(...BAD_JSON), fc.string({ maxLength: 50 }), fc.json({ maxDepth: 2 }), fc.constant("")),
    type: fc.oneof(fc.constantFrom(...JSON_TYPES, ...WRONG_TYPES), fc.constant(null), headerText(40)),
  });
  const wrongJson = wrongValue.map((value) => ({ kind: "json" as const, value, type: "application/json" }));
  const huge = fc.constantFrom(...JSON_TYPES).map((type) => ({ kind: "huge" as const, type }));
  return fc.oneof(
    { weight: takesBody ? 1 : 8, arbitrary: fc.constant({ kind: "none" as const }) },
    { weight: takesBody ? 12 : 1, arbitrary: json },
    { weight: 3, arbitrary: text },
    { weight: 1, arbitrary: wrongJson },
    { weight: route.body?.transport === "json-or-form" ? 6 : 1, arbitrary: multipartArb(route) },
    { weight: 1, arbitrary: huge },
  );
}

/** Every part of a fuzzed request to `route`; the method is mostly the route's, sometimes another one. */
export function toSpecArb(route: RouteDef): fc.Arbitrary<FuzzSpec> {
  // Built once: arbitraries made inside a chain would be rebuilt (schemas walked, regexes parsed) per sample.
  const parts = { params: fc.tuple(...toParamNames(route.path).map((name) => (name === ":account_id" ? accountPick : idPick))), query: queryArb(route), auth: authPick, scopeIndex: fc.nat({ max: 6 }), idempotencyKey, simulate };
  const withBody = bodyArb(route);
  const forMethod = (method: string) => fc.record({ ...parts, method: fc.constant(method), body: method === "GET" ? fc.constant<BodyPick>({ kind: "none" }) : withBody });
  const others = ["GET", "POST", "PATCH", "DELETE", "PUT"].filter((m) => m !== route.method);
  return fc.oneof({ weight: 12, arbitrary: forMethod(route.method) }, { weight: 1, arbitrary: fc.oneof(...others.map(forMethod)) });
}
