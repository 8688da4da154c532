import {
  productCreateMultipartSchema,
  productCreateSchema,
  productListSchema,
  productUpdateMultipartSchema,
  productUpdateSchema,
} from "@lp/core";
import { defineRoute, type RouteDef } from "../http/route.js";
import { data, list, noContent } from "../http/respond.js";
import { productListResponse, productResponse } from "../openapi/resource-schemas.js";

const base = "/v1/accounts/:account_id/products";
const tags = ["Products"];

/** The products operations of the account plane. */
export const productRoutes: RouteDef[] = [
  defineRoute({
    method: "POST",
    path: base,
    plane: "account",
    scope: "products:write",
    body: "json-or-multipart",
    docs: {
      summary: "Create a product",
      tags,
      body: productCreateSchema,
      multipart: productCreateMultipartSchema,
      responses: { 201: { description: "The product with its images", schema: productResponse } },
    },
    handler: async ({ server, accountId, input }) => data(await server.core.products.create(accountId, input), 201),
  }),
  defineRoute({
    method: "GET",
    path: base,
    plane: "account",
    scope: "products:read",
    docs: {
      summary: "List products",
      tags,
      query: productListSchema,
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
    handler: async ({ server, accountId, params }) => data(await server.core.products.get(accountId, params.id)),
  }),
  defineRoute({
    method: "PATCH",
    path: `${base}/:id`,
    plane: "account",
    scope: "products:write",
    body: "json-or-multipart",
    docs: {
      summary: "Update a product and its media ordering",
      tags,
      body: productUpdateSchema,
      multipart: productUpdateMultipartSchema,
      responses: { 200: { description: "The product with its images", schema: productResponse } },
    },
    handler: async ({ server, accountId, params, input }) => data(await server.core.products.update(accountId, params.id, input)),
  }),
  defineRoute({
    method: "DELETE",
    path: `${base}/:id`,
    plane: "account",
    scope: "products:write",
    docs: { summary: "Soft-delete a product", tags, responses: { 204: { description: "Deleted" } } },
    handler: async ({ server, accountId, params }) => {
      await server.core.products.remove(accountId, params.id);
      return noContent();
    },
  }),
];
