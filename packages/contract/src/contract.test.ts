import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALL_EVENT_TYPES, EVENT_DATA_SCHEMAS, productSchema, productSummarySchema } from "./index.js";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("@lp/contract", () => {
  it("depends on zod alone and imports nothing else, so @lp/client can take it without storage or queues", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(Object.keys(pkg.dependencies)).toEqual(["zod"]);
    const sources = readdirSync(join(root, "src")).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    const imported = sources.flatMap((f) => [...readFileSync(join(root, "src", f), "utf8").matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]));
    expect(imported.filter((m) => m !== "zod" && !m.startsWith("./"))).toEqual([]);
  });

  it("describes the data of every event type", () => {
    expect(Object.keys(EVENT_DATA_SCHEMAS).sort()).toEqual([...ALL_EVENT_TYPES].sort());
  });

  it("tells a list item from a full product, and holds timestamps to date-times", () => {
    const summary = {
      id: "00000000-0000-4000-8000-000000000001",
      title: "Chair",
      description: null,
      price: 120,
      original_price: null,
      delivery_price: null,
      preview_image_url: "http://lp.test/media/x.png",
      product_type: "physical",
      created_at: "2026-03-01T10:00:00.000Z",
      updated_at: "2026-03-01T10:00:00.000Z",
    };
    expect(productSummarySchema.parse(summary)).toEqual(summary);
    expect(productSchema.safeParse(summary).success).toBe(false);
    expect(productSchema.safeParse({ ...summary, images: [] }).success).toBe(true);
    expect(productSummarySchema.safeParse({ ...summary, created_at: "2026-03-01" }).success).toBe(false);
  });
});
