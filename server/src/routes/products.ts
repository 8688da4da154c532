import {
  productCreateMultipartSchema,
  productCreateSchema,
  productListSchema,
  productUpdateMultipartSchema,
  productUpdateSchema,
} from "@lp/core";
import { defineRoute, jsonOrFormBody, type RouteDef } from "../http/route.js";
import { data, dataText, list, noContent } from "../http/respond.js";
import { productListResponse, productResponse } from "../openapi/resource-schemas.js";

const base = "/v1/accounts/:account_id/products";
const tags = ["Products"];

/** What a 403 of a route that adds products or uploads may say. */
const QUOTA_403 = {
  description:
    "insufficient_scope, account_mismatch, or quota_exceeded: the account's product_quota or media_quota_bytes (uploaded image bytes) would be passed; details.quota names which (products or media_bytes), with details.limit and details.used. Nothing is stored.",
};

/** The products operations of the account plane. */
export const productRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "products:write",
    // Multipart: numbers as text, lists as repeated parts, image files in `images`.
    body: jsonOrFormBody(productCreateSchema, productCreateMultipartSchema, { files: "images" }),
    docs: {
      summary: "Create a product",
      tags,
      responses: { 201: { description: "The product with its images", schema: productResponse }, 403: QUOTA_403 },
    },
    handler: async ({ server, accountId, input, files, change }) => data(await server.core.products.create(accountId, input, files, change), 201),
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "account",
    scope: "products:read",
    query: productListSchema,
    docs: {
      summary: "List products",
      tags,
      responses: { 200: { description: "A page of products, without images", schema: productListResponse } },
    },
    handler: async ({ server, accountId, query, url }) => list(await server.core.products.list(accountId, query), url),
  }),
  defineRoute({
    method: "GET",
    path: `${base}/:id`,
    plane: "account",
    scope: "products:read",
    docs: { summary: "Get a product", tags, responses: { 200: { description: "The product with its images", schema: productResponse } } },
    handler: async ({ server, accountId, params }) => dataText(await server.core.products.getJson(accountId, params.id)),
  }),
  defineRoute({
    method: "PATCH",
    path: `${base}/:id`,
    plane: "account",
    scope: "products:write",
    body: jsonOrFormBody(productUpdateSchema, productUpdateMultipartSchema, { files: "images" }),
    docs: {
      summary: "Update a product and its media ordering",
      tags,
      responses: { 200: { description: "The product with its images", schema: productResponse }, 403: QUOTA_403 },
    },
    handler: async ({ server, accountId, params, input, files, change }) => data(await server.core.products.update(accountId, params.id, input, files, change)),
  }),
  defineRoute({
    method: "DELETE",
    path: `${base}/:id`,
    plane: "account",
    scope: "products:write",
    docs: { summary: "Soft-delete a product", tags, responses: { 204: { description: "Deleted" } } },
    handler: async ({ server, accountId, params, change }) => {
      await server.core.products.remove(accountId, params.id, change);
      return noContent();
    },
  }),
];
