import type { AccountPrincipal, AppPrincipal, BodyInput, Core, Scope } from "@lp/core";
import type { z } from "zod";
import type { BodyKind } from "./body.js";
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
}

/** Who an in-process dashboard request acts as, decided per route. */
export type Grant = (route: RouteDef, params: Record<string, string>) => Promise<AccountPrincipal | AppPrincipal | null>;

/** Who the pipeline hands a route of plane `P`: checked by `authenticate`, so handlers need no cast. */
export type PrincipalOf<P extends Plane> = P extends "account" ? AccountPrincipal : P extends "app" ? AppPrincipal : null;

/** The body a route of kind `B` receives: `readBody` gives every route with a body kind an input. */
export type InputOf<B extends BodyKind | undefined> = B extends "none" | undefined ? null : BodyInput;

/** Everything a route handler receives; typed by the route's plane and body kind through {@link defineRoute}. */
export interface RouteContext<P extends Plane = Plane, B extends BodyKind | undefined = BodyKind | undefined> {
  req: Request;
  url: URL;
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  requestId: string;
  /** Set on account-plane routes: the path's account, already checked against the token. */
  accountId: string;
  principal: PrincipalOf<P>;
  input: InputOf<B>;
  /** The `Lp-Simulate` value when simulation is on, else null. */
  simulate: string | null;
  server: ServerContext;
}

/** OpenAPI facts of a route, taken from the zod schemas that validate it. */
export interface RouteDocs {
  summary: string;
  tags: string[];
  body?: z.ZodType;
  multipart?: z.ZodType;
  query?: z.ZodType;
  responses: Record<number, { description: string; schema?: z.ZodType }>;
}

/** One operation of the API. The route table drives dispatch, 405s, OpenAPI and the isolation tests. */
export interface RouteDef {
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  path: string;
  plane: Plane;
  scope?: Scope;
  body?: BodyKind;
  /** Largest JSON body, when not the default 1 MiB (admin import). */
  bodyLimit?: number;
  docs?: RouteDocs;
  /** Leave out of the OpenAPI document (admin, media, sites). */
  internal?: boolean;
  handler(ctx: RouteContext): Promise<RouteResponse> | RouteResponse;
}

/** A route as declared: its handler's principal and input follow its `plane` and `body`. */
export type TypedRouteDef<P extends Plane, B extends BodyKind | undefined> = Omit<RouteDef, "plane" | "body" | "handler"> & {
  plane: P;
  body?: B;
  handler(ctx: RouteContext<P, B>): Promise<RouteResponse> | RouteResponse;
};

/**
 * Declares a route with its types checked: on the `account` plane the handler gets an `AccountPrincipal`, on
 * `app` an `AppPrincipal`, elsewhere null; a route with a body kind gets a `BodyInput`, one without gets null.
 */
export function defineRoute<P extends Plane, B extends BodyKind | undefined = undefined>(route: TypedRouteDef<P, B>): RouteDef {
  // Sound because the pipeline builds the context from `authenticate` (which checks the principal's kind
  // against the plane) and `readBody` (which returns an input for every kind but "none").
  return route as unknown as RouteDef;
}
