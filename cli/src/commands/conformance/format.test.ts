import { productListResponse, productResponse } from "@lp/contract";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createColors } from "../../runtime/color.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { toLines, toSummary, toTable } from "./format.js";
import { schemaProblems } from "./schema-issues.js";
import type { ConformanceReport } from "./types.js";

const product = {
  id: "00000000-0000-4000-8000-000000000001",
  title: "Apron",
  description: null,
  price: 42,
  original_price: null,
  delivery_price: null,
  preview_image_url: "http://lp.test/media/a.png",
  product_type: "physical",
  created_at: "2026-03-01T10:00:00.000Z",
  updated_at: "2026-03-01T10:00:00.000Z",
  images: [],
};

describe("schema problems", () => {
  it("names the field path, what was expected and what came", () => {
    const { preview_image_url: _, ...withoutPreview } = product;
    expect(schemaProblems({ data: withoutPreview }, productResponse)).toEqual(["data.preview_image_url missing"]);
    expect(schemaProblems({ data: { ...product, price: "42", product_type: "digital", id: "42" } }, productResponse)).toEqual([
      "data.id: expected a uuid, got \"42\"",
      "data.price: expected number, got string",
      'data.product_type: expected "physical" or "service", got "digital"',
    ]);
    expect(schemaProblems("<html>", productResponse)).toEqual(["body: expected object, got string"]);
    expect(schemaProblems({ a: 1 }, z.object({ a: z.string() }), { prefix: ["data"] })).toEqual(["data.a: expected string, got number"]);
  });

  it("leaves out what `keep` drops: list items that are not the run's own", () => {
    const { images: _, ...summary } = product;
    const body = { data: [summary, { ...summary, price: "x" }], pagination: { next_cursor: null, has_more: false } };
    expect(schemaProblems(body, productListResponse)).toEqual(["data[1].price: expected number, got string"]);
    expect(schemaProblems(body, productListResponse, { keep: (path) => path[1] !== 1 })).toEqual([]);
  });
});

const report: ConformanceReport = {
  ok: false,
  target: { api_url: "https://api.example.com", account: "acct_1", application: null },
  run_id: "lpc-00000001",
  started_at: "2026-03-01T10:00:00.000Z",
  duration_ms: 1200,
  counts: { pass: 1, fail: 1, skip: 1 },
  checks: [
    { id: "products.create", area: "products", verdict: "fail", expected: "201 with the product", got: "201", problems: ["data.preview_image_url missing", "data.price: expected number, got string"] },
    { id: "deployments.create", area: "deployments", verdict: "pass", expected: "202", got: "202", problems: [] },
    { id: "errors.insufficient_scope", area: "errors", verdict: "skip", expected: "403", got: "-", problems: [], note: "no --narrow-token given" },
  ],
  failed: ["products.create: data.preview_image_url missing", "products.create: data.price: expected number, got string"],
  aborted: null,
  created: [{ kind: "product", id: "00000000-0000-4000-8000-000000000002", label: "product (JSON)", deleted: false }],
  cleanup: { kept: false, deleted: [], left: [{ kind: "product", id: "00000000-0000-4000-8000-000000000002", reason: "DELETE ...: status 500" }] },
};

describe("the report's forms", () => {
  it("is a table on a terminal, with each failure's problems and each skip's reason under it", () => {
    const colors = createColors(createFakeIo({ tty: true }).io, "stdout");
    expect(toTable(report, colors)).toBe(
      [
        "CHECK                      EXPECTED              GOT  RESULT",
        "products.create            201 with the product  201  fail",
        "deployments.create         202                   202  pass",
        "errors.insufficient_scope  403                   -    skip",
        "",
        "  products.create: data.preview_image_url missing",
        "  products.create: data.price: expected number, got string",
        "  errors.insufficient_scope: skipped: no --narrow-token given",
        "",
      ].join("\n"),
    );
  });

  it("is one tab-separated line per check off a terminal", () => {
    expect(toLines(report).split("\n")).toEqual([
      "products.create\t201 with the product\t201\tfail\tdata.preview_image_url missing; data.price: expected number, got string",
      "deployments.create\t202\t202\tpass\t",
      "errors.insufficient_scope\t403\t-\tskip\tno --narrow-token given",
      "",
    ]);
  });

  it("sums up on stderr: counts, failures, what was left behind", () => {
    expect(toSummary(report)).toBe(
      [
        "Conformance of https://api.example.com (account acct_1): 1 passed, 1 failed, 1 skipped.",
        "  products.create: data.preview_image_url missing",
        "  products.create: data.price: expected number, got string",
        "Cleaned up: 1 record(s) made, 1 left behind:",
        "  left behind: product 00000000-0000-4000-8000-000000000002 (DELETE ...: status 500)",
        "",
      ].join("\n"),
    );
  });
});
