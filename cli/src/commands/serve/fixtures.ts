import { resolve } from "node:path";
import type { Client, ProductCreateInput } from "@lp/client";
import { UsageError } from "../../runtime/errors.js";
import { findFixture, readFixtureText, toFixtureImages } from "../../runtime/fixtures.js";

/**
 * Creates the fixture products through the API of the running server, unless the dev account
 * already has products (a restarted fs server keeps them). Images given as paths (relative to the
 * file) are uploaded. Returns how many were created.
 */
export async function seedProducts(client: Client, file: string | true, cwd: string): Promise<number> {
  const path = file === true ? await findFixture("products.json", "--seed") : resolve(cwd, file);
  let products: ProductCreateInput[];
  try {
    const parsed = JSON.parse(await readFixtureText(path)) as ProductCreateInput[] | { products: ProductCreateInput[] };
    products = Array.isArray(parsed) ? parsed : parsed.products;
    if (!Array.isArray(products)) throw new Error("expected an array of products");
  } catch (error) {
    throw new UsageError(`--seed: cannot read products from ${path}: ${(error as Error).message}`);
  }
  const existing = await client.products.list({ per_page: 1 });
  if (existing.data.length > 0) return 0;
  for (const product of products) {
    const images = await toFixtureImages(product.images, path);
    await client.products.create({ ...product, ...(images ? { images } : {}) } as ProductCreateInput);
  }
  return products.length;
}
