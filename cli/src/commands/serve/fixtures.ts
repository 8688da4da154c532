import { access, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Client, ProductCreateInput } from "@lp/client";
import { UsageError } from "../../runtime/errors.js";

/** Finds `fixtures/products.json` in the nearest folder above this module (source or build). */
async function defaultFixtures(): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "fixtures", "products.json");
    if (await access(candidate).then(() => true, () => false)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new UsageError("--seed: fixtures/products.json was not found; pass --seed FILE.");
    dir = parent;
  }
}

/**
 * Creates the fixture products through the API of the running server, unless the dev account
 * already has products (a restarted fs server keeps them). Returns how many were created.
 */
export async function seedProducts(client: Client, file: string | true, cwd: string): Promise<number> {
  const path = file === true ? await defaultFixtures() : resolve(cwd, file);
  let products: ProductCreateInput[];
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as ProductCreateInput[] | { products: ProductCreateInput[] };
    products = Array.isArray(parsed) ? parsed : parsed.products;
  } catch (error) {
    throw new UsageError(`--seed: cannot read products from ${path}: ${(error as Error).message}`);
  }
  const existing = await client.products.list({ per_page: 1 });
  if (existing.data.length > 0) return 0;
  for (const product of products) await client.products.create(product);
  return products.length;
}
