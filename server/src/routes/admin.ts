import { clockMoveSchema, replayInputSchema, toReplayWindow, createAccountSchema, createAppSchema, createTokenSchema, importDocumentSchema, IMPORT_BODY_LIMIT, toDurationMs, toTimestamp, type Core } from "@lp/core";
import { defineRoute, jsonBody, noInputBody, type RouteDef } from "../http/route.js";
import { data, json } from "../http/respond.js";
import { journalQuerySchema, toJournalEntry, toJournalFilter } from "../journal/journal-query.js";

/** What `/_admin/clock` answers: the time now and whether it moves by itself. */
const clockState = (core: Core, now = core.time.now()) => ({ now: toTimestamp(now), mode: core.time.mode });

/** The local admin API (DESIGN §4, §15): accounts, tokens, applications, reset, export, import, the clock. */
export const adminRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: "/_admin/accounts",
    plane: "admin",
    body: jsonBody(createAccountSchema, { optional: true }),
    internal: true,
    handler: async ({ server, input, change }) => data(await server.core.accounts.create(input, change), 201),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/tokens",
    plane: "admin",
    body: jsonBody(createTokenSchema),
    internal: true,
    handler: async ({ server, input, change }) => data(await server.core.accounts.createToken(input, change), 201),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/apps",
    plane: "admin",
    body: jsonBody(createAppSchema),
    internal: true,
    handler: async ({ server, input, change }) => data(await server.core.accounts.createApp(input, change), 201),
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
    // A document of version 3 (what GET /_admin/export writes), or of version 1 (an export of format 2, Redis's too).
    body: jsonBody(importDocumentSchema),
    bodyLimit: IMPORT_BODY_LIMIT,
    internal: true,
    handler: async ({ server, input }) => {
      const counts = await server.core.admin.import(input);
      // The import replaced every row: put this server's dev credentials back, as a reset does.
      await server.afterReset?.();
      return data(counts);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/_admin/clock",
    plane: "admin",
    internal: true,
    handler: ({ server }) => data(clockState(server.core)),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/clock",
    plane: "admin",
    body: jsonBody(clockMoveSchema),
    internal: true,
    // Answers once what fell due in between has run (deliveries, retries, the steps of jobs), in time order.
    handler: async ({ server, input }) => {
      const now = "advance" in input ? await server.core.time.advance(toDurationMs(input.advance)) : await server.core.time.set(new Date(input.to));
      return data(clockState(server.core, now));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/_admin/requests",
    plane: "admin",
    query: journalQuerySchema,
    internal: true,
    // The journal of this server (a ring of its last 500 requests), newest first, credentials redacted.
    handler: ({ server, query }) => data((server.journal?.find(toJournalFilter(query, server.core.clock.now())) ?? []).map(toJournalEntry)),
  }),
  defineRoute({
    method: "POST",
    path: "/_admin/webhook-endpoints/:endpoint_id/replay",
    plane: "admin",
    body: jsonBody(replayInputSchema, { optional: true }),
    internal: true,
    // Any application's endpoint: the admin key stands above the developer plane.
    handler: async ({ server, input, params, change }) =>
      data(await server.core.webhooks.replay(params.endpoint_id, toReplayWindow(input ?? {}, server.core.clock.now()), change), 202),
  }),
];
