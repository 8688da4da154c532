import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.js";
import { createTestApp } from "../testing/test-app.js";

const png = () => new Blob([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex")]);

describe("multipart bodies are parsed as a stream with limits", () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const product = () => {
    const form = new FormData();
    form.set("title", "Poster");
    form.set("price", "5");
    form.set("product_type", "physical");
    return form;
  };

  it("refuses more parts than the limit with 413 naming it", async () => {
    const form = product();
    // Within the fields and files limits each, past the parts limit together.
    for (let i = 0; i < 240; i++) form.append("images", "https://example.com/a.png");
    for (let i = 0; i < 20; i++) form.append("images", png(), `p${i}.png`);
    const res = await t.call("POST", "products", { raw: form });
    expect(expectError(res, 413, "payload_too_large").details).toMatchObject({ limit: "parts", max: 256 });
  });

  it("refuses more fields than the limit", async () => {
    const form = product();
    for (let i = 0; i < 251; i++) form.append(`f${i}`, "x");
    const res = await t.call("POST", "products", { raw: form });
    expect(expectError(res, 413, "payload_too_large").details).toMatchObject({ limit: "fields", max: 250 });
  });

  it("refuses a field value over its size", async () => {
    const big = product();
    big.set("description", "d".repeat(64 * 1024 + 1));
    const res = await t.call("POST", "products", { raw: big });
    expect(expectError(res, 413, "payload_too_large").details).toMatchObject({ limit: "field_size", limit_bytes: 64 * 1024, field: "description" });
  });

  it("refuses more files than 20", async () => {
    const form = product();
    for (let i = 0; i < 21; i++) form.append("images", png(), `p${i}.png`);
    const res = await t.call("POST", "products", { raw: form });
    expect(expectError(res, 413, "payload_too_large").details).toMatchObject({ limit: "files", max: 20 });
    expect(await t.core.media.paths()).toEqual([]);
  });

  it("keeps a field sent once a string, a repeated one a list in order, and files in order", async () => {
    const form = product();
    form.append("images", png(), "first.png");
    form.append("images", "https://example.com/one.png");
    form.append("images", "https://example.com/two.png");
    const res = await t.call("POST", "products", { raw: form });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.title).toBe("Poster");
    expect(res.json.data.images.map((i: { url: string }) => i.url).filter((u: string) => u.startsWith("https://example.com"))).toEqual([
      "https://example.com/one.png",
      "https://example.com/two.png",
    ]);
    expect(res.json.data.images).toHaveLength(3);
  });

  it("answers 400 for a multipart body cut short", async () => {
    const res = await t.call("POST", "products", {
      raw: "--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nPoster",
      headers: { "content-type": "multipart/form-data; boundary=b" },
    });
    expectError(res, 400, "validation_error");
  });
});
