import type { AccountPrincipal, AppPrincipal, BodyInput } from "@lp/core";
import { afterEach, describe, expect, expectTypeOf, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { defineRoute, type RouteContext } from "./route.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("typed routes", () => {
  it("hand each plane's handler its own principal and each body kind its input (checked by the type checker)", () => {
    expectTypeOf<RouteContext<"account">["principal"]>().toEqualTypeOf<AccountPrincipal>();
    expectTypeOf<RouteContext<"app">["principal"]>().toEqualTypeOf<AppPrincipal>();
    expectTypeOf<RouteContext<"admin">["principal"]>().toEqualTypeOf<null>();
    expectTypeOf<RouteContext<"none", "json">["input"]>().toEqualTypeOf<BodyInput>();
    expectTypeOf<RouteContext<"none", undefined>["input"]>().toEqualTypeOf<null>();
    defineRoute({
      method: "GET",
      path: "/x",
      plane: "app",
      handler: (ctx) => {
        expectTypeOf(ctx.principal).toEqualTypeOf<AppPrincipal>();
        expectTypeOf(ctx.input).toEqualTypeOf<null>();
        return { status: 204 } as never;
      },
    });
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
