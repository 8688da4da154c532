import { createAccountSchema, createAppSchema, createTokenSchema, exportSchema } from "@lp/core";
import { defineRoute, jsonBody, noInputBody, type RouteDef } from "../http/route.js";
import { data, json } from "../http/respond.js";

/** The local admin API (DESIGN §4): accounts, tokens, applications, reset, export, import. */
export const adminRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: "/_admin/accounts",
    plane: "admin",
    body: jsonBody(createAccountSchema, { optional: true }),
    internal: true,
    handler: async ({ server, input }) => data(await server.core.accounts.create(input), 201),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/tokens",
    plane: "admin",
    body: jsonBody(createTokenSchema),
    internal: true,
    handler: async ({ server, input }) => data(await server.core.accounts.createToken(input), 201),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/apps",
    plane: "admin",
    body: jsonBody(createAppSchema),
    internal: true,
    handler: async ({ server, input }) => data(await server.core.accounts.createApp(input), 201),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/reset",
    plane: "admin",
    body: noInputBody,
    internal: true,
    handler: async ({ server }) => {
      await server.core.admin.reset();
      await server.afterReset?.();
      return data({ reset: true });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/_admin/export",
    plane: "admin",
    internal: true,
    handler: async ({ server }) => json(await server.core.admin.export()),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/import",
    plane: "admin",
    body: jsonBody(exportSchema),
    bodyLimit: 512 * 1024 * 1024,
    internal: true,
    handler: async ({ server, input }) => {
      const counts = await server.core.admin.import(input);
      // The import replaced every record: put this server's dev credentials back, as a reset does.
      await server.afterReset?.();
      return data(counts);
    },
  }),
];
