import { deploymentListSchema, parseInput } from "@lp/core";
import { z } from "zod";
import { defineRoute, type RouteDef } from "../http/route.js";
import { accepted, data, list } from "../http/respond.js";
import { deploymentAcceptedResponse, deploymentListResponse, deploymentResponse } from "../openapi/deployment-schemas.js";

const base = "/v1/accounts/:account_id/pages/:id/deployments";
const tags = ["Deployments"];
const emptyBody = z.strictObject({}).describe("Empty, or {}");

/** Deployments of a page (spec: Deployments). */
export const deploymentRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "pages:deploy",
    body: "optional-json",
    docs: {
      summary: "Deploy the page as it stands (asynchronous)",
      tags,
      body: emptyBody,
      responses: { 202: { description: "Started; poll poll_url (also in Location)", schema: deploymentAcceptedResponse } },
    },
    handler: async ({ server, accountId, params, input, simulate }) => {
      const body = input?.kind === "json" ? input.body : undefined;
      if (body !== undefined) parseInput(emptyBody, body);
      return accepted(await server.core.deployments.start(accountId, params.id, simulate));
    },
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "Deployment history, newest first", tags, query: deploymentListSchema, responses: { 200: { description: "A page of deployments", schema: deploymentListResponse } } },
    handler: async ({ server, accountId, params, query, url }) => list(await server.core.deployments.list(accountId, params.id, query), url),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/:deploymentId`,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "Poll one deployment", tags, responses: { 200: { description: "The deployment", schema: deploymentResponse } } },
    handler: async ({ server, accountId, params }) => data(await server.core.deployments.get(accountId, params.id, params.deploymentId)),
  }),
];
