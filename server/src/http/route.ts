import type { RequestLog } from "../journal/request-log.js";
import type { AccountPrincipal, AppPrincipal, ChangeMark, Core, Scope } from "@lp/core";
import { z } from "zod";
import type { BodyKind } from "./body.js";
import type { Upload } from "./form.js";
import type { RateLimit } from "./rate-limit.js";
import type { RouteResponse } from "./respond.js";

/** Which credentials a route takes. */
export type Plane = "account" | "app" | "admin" | "none";

/** Server-wide settings the routes read. */
export interface ServerSettings {
  /** Honour the `Lp-Simulate` fault-injection header. */
  simulate: boolean;
  /** Admin key; null turns the admin API off. */
  adminKey: string | null;
  publicUrl: () => string;
  /** Checkout posts per client address; null or absent for no limit. */
  checkoutRateLimit?: RateLimit | null;
}

/** What the server hands every route: the core and the settings. */
export interface ServerContext {
  core: Core;
  settings: ServerSettings;
  /** Runs after an admin reset, so the dev credentials can be put back. */
  afterReset?: () => Promise<void>;
  /**
   * Requests the dashboard sends in-process, with the principal it acts as. Keyed by the Request object
   * itself, so nothing a client sends over the wire can claim one.
   */
  grants?: WeakMap<Request, Grant>;
  /** The request journal (`/_admin/requests`); null when the admin API is off. */
  journal?: RequestLog | null;
}

/** Who an in-process dashboard request acts as, decided per route. */
export type Grant = (route: RouteDef, params: Record<string, string>) => Promise<AccountPrincipal | AppPrincipal | null>;

/** Who the pipeline hands a route of plane `P`: checked by `authenticate`, so handlers need no cast. */
export type PrincipalOf<P extends Plane> = P extends "account" ? AccountPrincipal : P extends "app" ? AppPrincipal : null;

/** A JSON body validated by `schema`. An empty body without a Content-Type reads as `{}`. */
export interface JsonBody<S extends z.ZodType = z.ZodType> {
  transport: "json";
  schema: S;
  /** The body may be left out whatever its Content-Type says (operations without input). */
  optional: boolean;
}

/**
 * A JSON body validated by `schema`, or the same input as a multipart form: its text fields validated by
 * `form` (whose output must be the JSON schema's, so the handler sees one type) and its files, which only
 * the `files` field (also sent as `files[]`) may carry.
 */
export interface JsonOrFormBody<S extends z.ZodType = z.ZodType, F extends z.ZodType = z.ZodType> {
  transport: "json-or-form";
  schema: S;
  form: F;
  files: string;
}

/** The body a route declares. */
export type BodySpec = JsonBody | JsonOrFormBody;

/** Declares a JSON body. */
export const jsonBody = <S extends z.ZodType>(schema: S, options: { optional?: boolean } = {}): JsonBody<S> => ({
  transport: "json",
  schema,
  optional: options.optional ?? false,
});

/** Declares a body sent as JSON or as a multipart form, whose files come in the field `options.files` names. */
export const jsonOrFormBody = <S extends z.ZodType, F extends z.ZodType<z.output<S>>>(
  schema: S,
  form: F,
  options: { files: string },
): JsonOrFormBody<S, F> => ({ transport: "json-or-form", schema, form, files: options.files });

/** The body of an operation without input: nothing, or `{}`; anything else is a 400. */
export const noInputBody = jsonBody(z.strictObject({}).describe("Empty, or {}"), { optional: true });

/** How the body reader must read a route's body. */
export function bodyKindOf(route: Pick<RouteDef, "body">): BodyKind {
  if (!route.body) return "none";
  if (route.body.transport === "json-or-form") return "json-or-multipart";
  return route.body.optional ? "optional-json" : "json";
}

/** The input a route with body `B` receives: the output of its schema; null without a body. */
export type InputOf<B extends BodySpec | undefined> = B extends { schema: infer S extends z.ZodType } ? z.output<S> : null;

/** The query a route with query schema `Q` receives; without one, the raw parameters. */
export type QueryOf<Q extends z.ZodType | undefined> = Q extends z.ZodType ? z.output<Q> : Record<string, string | string[]>;

/** Everything a route handler receives; typed by the route's plane, body and query through {@link defineRoute}. */
export interface RouteContext<P extends Plane = Plane, B extends BodySpec | undefined = BodySpec | undefined, Q extends z.ZodType | undefined = undefined> {
  req: Request;
  url: URL;
  params: Record<string, string>;
  query: QueryOf<Q>;
  requestId: string;
  /** Set on account-plane routes: the path's account, already checked against the token. */
  accountId: string;
  principal: PrincipalOf<P>;
  input: InputOf<B>;
  /** Files of a multipart body, from the route's files field only; empty for JSON. */
  files: Upload[];
  /** The `Lp-Simulate` value when simulation is on, else null. */
  simulate: string | null;
  /**
   * The mark of the request's Idempotency-Key, when it has one: passed as the last argument of the service
   * call that makes the request's change, which awaits it in the change's transaction. Undefined otherwise.
   */
  change: ChangeMark | undefined;
  server: ServerContext;
}

/** OpenAPI facts of a route; its request body and query parameters come from `body` and `query`. */
export interface RouteDocs {
  summary: string;
  tags: string[];
  responses: Record<number, { description: string; schema?: z.ZodType }>;
}

/** One operation of the API. The route table drives dispatch, validation, 405s, OpenAPI and the isolation tests. */
export interface RouteDef {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  path: string;
  plane: Plane;
  scope?: Scope;
  /** The body's schema and transport: validated by the pipeline, documented as the requestBody. */
  body?: BodySpec;
  /** The query's schema: validated by the pipeline, documented as the query parameters. */
  query?: z.ZodType;
  /** Largest JSON body, when not the default 1 MiB (admin import). */
  bodyLimit?: number;
  docs?: RouteDocs;
  /** Leave out of the OpenAPI document (admin, media, sites). */
  internal?: boolean;
  handler(ctx: RouteContext<Plane, BodySpec | undefined, z.ZodType | undefined>): Promise<RouteResponse> | RouteResponse;
}

/** A route as declared: its handler's principal, input and query follow its `plane`, `body` and `query`. */
export type TypedRouteDef<P extends Plane, B extends BodySpec | undefined, Q extends z.ZodType | undefined> = Omit<
  RouteDef,
  "plane" | "body" | "query" | "handler"
> & {
  plane: P;
  body?: B;
  query?: Q;
  handler(ctx: RouteContext<P, B, Q>): Promise<RouteResponse> | RouteResponse;
};

/**
 * Declares a route with its types checked: on the `account` plane the handler gets an `AccountPrincipal`, on
 * `app` an `AppPrincipal`, elsewhere null; its `input` is the output of the body schema (null without a
 * body) and its `query` the output of the query schema.
 */
export function defineRoute<P extends Plane, B extends BodySpec | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  route: TypedRouteDef<P, B, Q>,
): RouteDef {
  // Sound because the pipeline builds the context from `authenticate` (which checks the principal's kind
  // against the plane) and from the declared schemas (`input` and `query` are their parsed outputs).
  return route as unknown as RouteDef;
}
