import { deploymentListSchema, LpError } from "@lp/core";
import { defineRoute, noInputBody, type RouteDef } from "../http/route.js";
import { accepted, data, fillPath, list } from "../http/respond.js";
import { deploymentAcceptedResponse, deploymentListResponse, deploymentResponse } from "../openapi/deployment-schemas.js";

const base = "/v1/accounts/:account_id/pages/:id/deployments";
const onePath = `${base}/:deploymentId`;
const tags = ["Deployments"];

/** Where a deployment is polled: the path of the route below that answers it. */
const pollUrl = (accountId: string, pageId: string, deploymentId: string) =>
  fillPath(onePath, { account_id: accountId, id: pageId, deploymentId });

/** Deployments of a page (spec: Deployments). */
export const deploymentRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "pages:deploy",
    body: noInputBody,
    docs: {
      summary: "Deploy the page as it stands (asynchronous)",
      tags,
      responses: { 202: { description: "Started; poll poll_url (also in Location)", schema: deploymentAcceptedResponse } },
    },
    handler: async ({ server, accountId, params, simulate, change }) => {
      try {
        const { deployment_id, deployed_url, deployed_at } = await server.core.deployments.start(accountId, params.id, simulate, change);
        return accepted({ deployment_id, poll_url: pollUrl(accountId, params.id, deployment_id), deployed_url, deployed_at });
      } catch (error) {
        // The 409 names the deployment in flight; the client polls it at the URL the server gives.
        if (!(error instanceof LpError) || error.code !== "deployment_in_progress") throw error;
        const active = error.details?.active_deployment_id;
        if (typeof active !== "string") throw error;
        throw new LpError(error.code, error.message, { ...error.details, poll_url: pollUrl(accountId, params.id, active) });
      }
    },
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "account",
    scope: "pages:read",
    query: deploymentListSchema,
    docs: { summary: "Deployment history, newest first", tags, responses: { 200: { description: "A page of deployments", schema: deploymentListResponse } } },
    handler: async ({ server, accountId, params, query, url }) => list(await server.core.deployments.list(accountId, params.id, query), url),
  }),
  defineRoute({
    method: "GET",
    path: onePath,
    plane: "account",
    scope: "pages:read",
    docs: { summary: "Poll one deployment", tags, responses: { 200: { description: "The deployment", schema: deploymentResponse } } },
    handler: async ({ server, accountId, params }) => data(await server.core.deployments.get(accountId, params.id, params.deploymentId)),
  }),
];
