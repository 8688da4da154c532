import { pageCreateSchema, pageListSchema, pageUpdateSchema } from "@lp/core";
import { defineRoute, type RouteDef } from "../http/route.js";
import { accepted, data, list, noContent } from "../http/respond.js";
import { jobResponse, pageAcceptedResponse, pageListResponse, pageResponse } from "../openapi/page-schemas.js";

const base = "/v1/accounts/:account_id/pages";
const tags = ["Pages"];

/** Pages and their generation jobs (spec: Pages). */
export const pageRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "pages:write",
    body: "json",
    docs: {
      summary: "Create a page (asynchronous generation job)",
      tags,
      body: pageCreateSchema,
      responses: { 202: { description: "The job was accepted; poll poll_url", schema: pageAcceptedResponse } },
    },
    handler: async ({ server, accountId, input, simulate }) =>
      accepted(await server.core.pages.create(accountId, input?.kind === "json" ? input.body : undefined, simulate)),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/jobs/:jobId`,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "Poll a page generation job", tags, responses: { 200: { description: "The job", schema: jobResponse } } },
    handler: async ({ server, accountId, params }) => data(await server.core.pages.getJob(accountId, params.jobId)),
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "List pages", tags, query: pageListSchema, responses: { 200: { description: "A page of pages", schema: pageListResponse } } },
    handler: async ({ server, accountId, query, url }) => list(await server.core.pages.list(accountId, query), url),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/:id`,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "Get a page", tags, responses: { 200: { description: "The page with theme and SEO", schema: pageResponse } } },
    handler: async ({ server, accountId, params }) => data(await server.core.pages.get(accountId, params.id)),
  }),
  defineRoute({
    method: "PATCH",
    path: `${base}/:id`,
    plane: "account",
    scope: "pages:write",
    body: "json",
    docs: {
      summary: "Update a page's theme and SEO (JSON Merge Patch)",
      tags,
      body: pageUpdateSchema,
      responses: { 200: { description: "The page", schema: pageResponse } },
    },
    handler: async ({ server, accountId, params, input }) =>
      data(await server.core.pages.update(accountId, params.id, input?.kind === "json" ? input.body : undefined)),
  }),
  defineRoute({
    method: "DELETE",
    path: `${base}/:id`,
    plane: "account",
    scope: "pages:write",
    docs: { summary: "Delete a page with its components, routes and deployments", tags, responses: { 204: { description: "Deleted" } } },
    handler: async ({ server, accountId, params }) => {
      await server.core.pages.remove(accountId, params.id);
      return noContent();
    },
  }),
];
