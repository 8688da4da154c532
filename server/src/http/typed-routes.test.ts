import {
  createCore,
  createManualClock,
  pageCreateSchema,
  productCreateSchema,
  productListSchema,
  type AccountPrincipal,
  type AppPrincipal,
  type ImageUpload,
} from "@lp/core";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createApp } from "../app.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { json } from "./respond.js";
import { defineRoute, jsonBody, jsonOrFormBody, noInputBody, type JsonBody, type RouteContext } from "./route.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const probeBody = z.strictObject({ count: z.coerce.number().int().max(10), tags: z.array(z.string()).default([]) });
const probeQuery = z.object({ n: z.coerce.number().int().min(1).default(3) });

/** A route that reports what its handler received, to see the pipeline hand it the schemas' outputs. */
const probe = defineRoute({
  method: "POST",
  path: "/probe/:account_id",
  plane: "none",
  internal: true,
  body: jsonBody(probeBody),
  query: probeQuery,
  handler: ({ input, query, principal }) => json({ input, query, countType: typeof input.count, principal }),
});

async function probeApp() {
  const core = await createCore({ clock: createManualClock("2026-03-01T10:00:00.000Z"), publicUrl: () => "http://lp.test" });
  const { app } = createApp({ core, settings: { simulate: false, adminKey: null, publicUrl: () => "http://lp.test" }, log: null, extraRoutes: [probe] });
  return { app, close: () => core.close() };
}

describe("typed routes", () => {
  it("hand each plane's handler its own principal (checked by the type checker)", () => {
    expectTypeOf<RouteContext<"account">["principal"]>().toEqualTypeOf<AccountPrincipal>();
    expectTypeOf<RouteContext<"app">["principal"]>().toEqualTypeOf<AppPrincipal>();
    expectTypeOf<RouteContext<"admin">["principal"]>().toEqualTypeOf<null>();
    defineRoute({
      method: "GET",
      path: "/x",
      plane: "app",
      handler: (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<AppPrincipal>();
        expectTypeOf(ctx.input).toEqualTypeOf<null>();
        expectTypeOf(ctx.query).toEqualTypeOf<Record<string, string | string[]>>();
        return { status: 204 } as never;
      },
    });
  });

  it("hand the handler the outputs of its declared body and query schemas (checked by the type checker)", () => {
    expectTypeOf<RouteContext<"account", JsonBody<typeof probeBody>, typeof probeQuery>["input"]>().toEqualTypeOf<z.output<typeof probeBody>>();
    expectTypeOf<RouteContext<"account", JsonBody<typeof probeBody>, typeof probeQuery>["query"]>().toEqualTypeOf<{ n: number }>();
    defineRoute({
      method: "POST",
      path: "/x",
      plane: "account",
      body: jsonBody(pageCreateSchema),
      query: productListSchema,
      handler: (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<AccountPrincipal>();
        expectTypeOf(ctx.input).toEqualTypeOf<z.output<typeof pageCreateSchema>>();
        expectTypeOf(ctx.query).toEqualTypeOf<z.output<typeof productListSchema>>();
        return { status: 204 } as never;
      },
    });
    defineRoute({
      method: "POST",
      path: "/y",
      plane: "none",
      body: jsonOrFormBody(productCreateSchema, productCreateSchema, { files: "images" }),
      handler: (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<null>();
        expectTypeOf(ctx.input).toEqualTypeOf<z.output<typeof productCreateSchema>>();
        expectTypeOf(ctx.files).toExtend<ImageUpload[]>();
        return { status: 204 } as never;
      },
    });
    defineRoute({
      method: "POST",
      path: "/z",
      plane: "none",
      body: noInputBody,
      handler: (ctx) => {
        expectTypeOf(ctx.input).toEqualTypeOf<Record<string, never>>();
        return { status: 204 } as never;
      },
    });
    // A form whose output is not the JSON schema's would hand the handler two types: refused.
    // @ts-expect-error the form schema's output must be the JSON schema's
    jsonOrFormBody(productCreateSchema, z.object({ title: z.number() }), { files: "images" });
  });

  it("validates with the declared schemas and hands the handler their parsed outputs", async () => {
    const p = await probeApp();
    try {
      const ok = await p.app.request("/probe/a?n=7", { method: "POST", headers: { "content-type": "application/json" }, body: '{"count":"4"}' });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ input: { count: 4, tags: [] }, query: { n: 7 }, countType: "number", principal: null });
      const defaults = await p.app.request("/probe/a", { method: "POST", headers: { "content-type": "application/json" }, body: '{"count":1}' });
      expect((await defaults.json()).query).toEqual({ n: 3 });

      const badBody = await p.app.request("/probe/a", { method: "POST", headers: { "content-type": "application/json" }, body: '{"count":11,"extra":1}' });
      expect(badBody.status).toBe(400);
      const issues = (await badBody.json()).error.details.issues as { path: string; code: string }[];
      expect(issues.map((i) => [i.path, i.code]).sort()).toEqual([["", "unrecognized_keys"], ["count", "too_big"]]);

      const badQuery = await p.app.request("/probe/a?n=0", { method: "POST", headers: { "content-type": "application/json" }, body: '{"count":1}' });
      expect(badQuery.status).toBe(400);
      expect((await badQuery.json()).error).toMatchObject({ code: "validation_error", details: { issues: [{ path: "n", code: "too_small" }] } });

      // An empty body without a Content-Type reads as {}: the schema then names what is missing.
      const empty = await p.app.request("/probe/a", { method: "POST" });
      expect((await empty.json()).error.details.issues).toEqual([expect.objectContaining({ path: "count" })]);
    } finally {
      await p.close();
    }
  });

  it("answers 401 when an in-process grant hands a route a principal of another plane, instead of reaching the handler", async () => {
    t = await createTestApp();
    const req = new Request("http://lp.test/v1/developer/webhook-endpoints", { headers: { authorization: "Basic eDp5" } });
    t.server.grants = new WeakMap([[req, async () => ({ kind: "account", account_id: t!.creds.account_id, scopes: [] }) as AccountPrincipal]]);
    const res = await t.app.request(req);
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/needs an app principal/);
  });
});
