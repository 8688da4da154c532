/** Response shapes of products and the shared envelopes: written once, in @lp/contract. */
export { productImageSchema, productResponse, productListResponse, paginationSchema, errorResponse, timestampSchema } from "@lp/contract";
