import { hasFiles, toFormData } from "../multipart.js";
import type { RequestOptions, Transport } from "../transport.js";
import type { ListPage } from "../types/common.js";
import type { Product, ProductCreateInput, ProductListQuery, ProductSummary, ProductUpdateInput } from "../types/products.js";

/** Per-call options of write operations. */
export type WriteOptions = Pick<RequestOptions, "idempotencyKey" | "headers" | "signal">;

/** A JSON body, or multipart when any image is a file. */
function toBody(input: ProductCreateInput | ProductUpdateInput): unknown {
  return hasFiles(input) ? toFormData(input as Record<string, unknown>) : input;
}

/** `products`: the account's products (scopes `products:read`, `products:write`). */
export function createProductsApi(t: Transport) {
  const path = (id?: string) => t.accountPath(id === undefined ? "/products" : `/products/${encodeURIComponent(id)}`);
  return {
    /** Creates a product; images may be URLs or files (then the body goes as multipart). */
    async create(input: ProductCreateInput, options: WriteOptions = {}): Promise<Product> {
      return (await t.send<{ data: Product }>("POST", path(), "account", { ...options, body: toBody(input) })).data.data;
    },
    /** One page of products, without images. */
    async list(query: ProductListQuery = {}, options: Pick<RequestOptions, "signal"> = {}): Promise<ListPage<ProductSummary>> {
      return (await t.send<ListPage<ProductSummary>>("GET", path(), "account", { ...options, query: { ...query } })).data;
    },
    /** A product with its images in display order. */
    async get(id: string, options: Pick<RequestOptions, "signal"> = {}): Promise<Product> {
      return (await t.send<{ data: Product }>("GET", path(id), "account", options)).data.data;
    },
    /** Updates fields, appends images, removes (`remove_image_ids`) and reorders (`reorder_images`) them. */
    async update(id: string, input: ProductUpdateInput, options: WriteOptions = {}): Promise<Product> {
      return (await t.send<{ data: Product }>("PATCH", path(id), "account", { ...options, body: toBody(input) })).data.data;
    },
    /** Soft-deletes a product: afterwards it is a 404 and absent from lists. */
    async delete(id: string, options: Pick<RequestOptions, "signal"> = {}): Promise<void> {
      await t.send("DELETE", path(id), "account", options);
    },
  };
}

/** The `products` namespace. */
export type ProductsApi = ReturnType<typeof createProductsApi>;
