import { pageCreateSchema, pageListSchema, pageUpdateSchema } from "@lp/core";
import { defineRoute, jsonBody, type RouteDef } from "../http/route.js";
import { accepted, data, fillPath, list, noContent } from "../http/respond.js";
import { jobResponse, pageAcceptedResponse, pageListResponse, pageResponse } from "../openapi/page-schemas.js";

const base = "/v1/accounts/:account_id/pages";
const jobPath = `${base}/jobs/:jobId`;
const tags = ["Pages"];

/** Pages and their generation jobs (spec: Pages). */
export const pageRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "pages:write",
    body: jsonBody(pageCreateSchema),
    docs: {
      summary: "Create a page (asynchronous generation job)",
      tags,
      responses: {
        202: { description: "The job was accepted; poll poll_url", schema: pageAcceptedResponse },
        403: {
          description:
            "insufficient_scope, account_mismatch, or quota_exceeded: the account's page_quota (pages plus jobs processing; details.quota pages), or, for an inline product, its product_quota (details.quota products); details.limit and details.used. Nothing is stored.",
        },
      },
    },
    handler: async ({ server, accountId, input, simulate, change }) => {
      const { job_id } = await server.core.pages.create(accountId, input, simulate, change);
      return accepted({ job_id, poll_url: fillPath(jobPath, { account_id: accountId, jobId: job_id }) });
    },
  }),
  defineRoute({
    method: "GET",
    path: jobPath,
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
    query: pageListSchema,
    docs: { summary: "List pages", tags, responses: { 200: { description: "A page of pages", schema: pageListResponse } } },
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
    body: jsonBody(pageUpdateSchema),
    docs: {
      summary: "Update a page's theme and SEO (JSON Merge Patch)",
      tags,
      responses: { 200: { description: "The page", schema: pageResponse } },
    },
    handler: async ({ server, accountId, params, input, change }) => data(await server.core.pages.update(accountId, params.id, input, change)),
  }),
  defineRoute({
    method: "DELETE",
    path: `${base}/:id`,
    plane: "account",
    scope: "pages:write",
    docs: { summary: "Delete a page with its components, routes and deployments", tags, responses: { 204: { description: "Deleted" } } },
    handler: async ({ server, accountId, params, change }) => {
      await server.core.pages.remove(accountId, params.id, change);
      return noContent();
    },
  }),
];
