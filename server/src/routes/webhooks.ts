import { deliveryListSchema, endpointCreateSchema, endpointListSchema, endpointUpdateSchema } from "@lp/core";
import { defineRoute, jsonBody, noInputBody, type RouteContext, type RouteDef } from "../http/route.js";
import { data, json, list, noContent } from "../http/respond.js";
import {
  deliveryListResponse,
  deliveryResponse,
  endpointCreatedResponse,
  endpointListResponse,
  endpointResponse,
  endpointRotatedResponse,
  verifyResponse,
} from "../openapi/webhook-schemas.js";

const base = "/v1/developer/webhook-endpoints";
const one = `${base}/:endpoint_id`;
const tags = ["Webhook endpoints"];

/** The calling application (the "app" plane has authenticated it). */
const appOf = (ctx: Pick<RouteContext<"app">, "principal">) => ctx.principal.application_id;
const webhooks = (ctx: Pick<RouteContext, "server">) => ctx.server.core.webhooks.endpoints;

/** 202 for work done in the background, with `Location` on the endpoint's deliveries. */
const acceptedDelivery = (endpointId: string, delivery: unknown) => json({ data: delivery }, 202, { location: `${base}/${endpointId}/deliveries` });

/** The developer plane (spec: Webhook endpoints), authenticated with HTTP Basic as an application. */
export const webhookRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "app",
    body: jsonBody(endpointCreateSchema),
    docs: {
      summary: "Create a webhook endpoint; returns its secret once and the outcome of the verification challenge",
      tags,
      responses: { 201: { description: "The endpoint, its secret (shown once) and the verification outcome", schema: endpointCreatedResponse } },
    },
    handler: async (ctx) => data(await webhooks(ctx).create(appOf(ctx), ctx.input, ctx.change), 201),
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "app",
    query: endpointListSchema,
    docs: { summary: "List the application's webhook endpoints, newest first", tags, responses: { 200: { description: "A page of endpoints", schema: endpointListResponse } } },
    handler: async (ctx) => list(await webhooks(ctx).list(appOf(ctx), ctx.query), ctx.url),
  }),
  defineRoute({
    method: "GET",
    path: one,
    plane: "app",
    docs: { summary: "Get a webhook endpoint", tags, responses: { 200: { description: "The endpoint", schema: endpointResponse } } },
    handler: async (ctx) => data(await webhooks(ctx).get(appOf(ctx), ctx.params.endpoint_id)),
  }),
  defineRoute({
    method: "PATCH",
    path: one,
    plane: "app",
    body: jsonBody(endpointUpdateSchema),
    docs: {
      summary: "Update a webhook endpoint; a changed url returns it to pending_verification",
      tags,
      responses: { 200: { description: "The endpoint", schema: endpointResponse } },
    },
    handler: async (ctx) => data(await webhooks(ctx).update(appOf(ctx), ctx.params.endpoint_id, ctx.input, ctx.change)),
  }),
  defineRoute({
    method: "DELETE",
    path: one,
    plane: "app",
    docs: { summary: "Delete a webhook endpoint and its delivery history", tags, responses: { 204: { description: "Deleted" } } },
    handler: async (ctx) => {
      await webhooks(ctx).remove(appOf(ctx), ctx.params.endpoint_id, ctx.change);
      return noContent();
    },
  }),
  defineRoute({
    method: "POST",
    path: `${one}/verify`,
    plane: "app",
    body: noInputBody,
    docs: {
      summary: "Post a freshly signed nonce challenge; success makes the endpoint active",
      tags,
      responses: { 200: { description: "The outcome and the endpoint", schema: verifyResponse } },
    },
    handler: async (ctx) => {
      return data(await webhooks(ctx).verify(appOf(ctx), ctx.params.endpoint_id, ctx.change));
    },
  }),
  defineRoute({
    method: "POST",
    path: `${one}/rotate-secret`,
    plane: "app",
    body: noInputBody,
    docs: {
      summary: "Return a new secret once; the previous one keeps signing for 24 hours",
      tags,
      responses: { 200: { description: "The endpoint with its new secret", schema: endpointRotatedResponse } },
    },
    handler: async (ctx) => {
      return data(await webhooks(ctx).rotateSecret(appOf(ctx), ctx.params.endpoint_id, ctx.change));
    },
  }),
  defineRoute({
    method: "POST",
    path: `${one}/test`,
    plane: "app",
    body: noInputBody,
    docs: {
      summary: "Schedule a signed webhook.test delivery; nothing is sent inline",
      tags,
      responses: { 202: { description: "The scheduled delivery", schema: deliveryResponse } },
    },
    handler: async (ctx) => {
      return acceptedDelivery(ctx.params.endpoint_id, await webhooks(ctx).test(appOf(ctx), ctx.params.endpoint_id, ctx.change));
    },
  }),
  defineRoute({
    method: "GET",
    path: `${one}/deliveries`,
    plane: "app",
    query: deliveryListSchema,
    docs: {
      summary: "List deliveries, newest first, with their attempts",
      tags,
      responses: { 200: { description: "A page of deliveries", schema: deliveryListResponse } },
    },
    handler: async (ctx) => list(await webhooks(ctx).deliveries(appOf(ctx), ctx.params.endpoint_id, ctx.query), ctx.url),
  }),
  defineRoute({
    method: "POST",
    path: `${one}/deliveries/:delivery_id/retry`,
    plane: "app",
    body: noInputBody,
    docs: {
      summary: "Mark a stored delivery pending for one manual attempt, made asynchronously",
      tags,
      responses: { 202: { description: "The delivery, pending", schema: deliveryResponse } },
    },
    handler: async (ctx) => {
      const { endpoint_id, delivery_id } = ctx.params;
      return acceptedDelivery(endpoint_id, await webhooks(ctx).retry(appOf(ctx), endpoint_id, delivery_id, ctx.change));
    },
  }),
];
