import { beforeAll, describe, expect, it } from "vitest";
import { bearer, expectHealthy, expectRefused, head, rawExchange, useGuardedTarget, write, type Target } from "./hostile-client.js";

/** 64,000 digits: a colour or a number that once kept the only thread busy for seconds. */
const digits = "1".repeat(64_000);

/** Long strings against patterns, and long media paths against the embedded store (issue 27, points 1 and 6). */
describe("long strings and long paths against lp serve on its embedded store", () => {
  const use = useGuardedTarget(["--storage", "sqlite"]);
  let target: Target;
  beforeAll(() => {
    target = use();
  });

  const post = (path: string, body: string, type: string) =>
    rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", path, { ...bearer(target), "Content-Type": type, "Content-Length": String(Buffer.byteLength(body)), Connection: "close" }));
      await write(socket, body);
    });

  it("a 64 kB colour is a 400, and /healthz answers beside it", async () => {
    const body = JSON.stringify({ product: { title: "Lamp", description: "A desk lamp.", price: 4, product_type: "physical" }, design: { primary_color: `rgb(${digits}` } });
    const [answer] = await Promise.all([post(`/v1/accounts/${target.account}/pages`, body, "application/json"), expectHealthy(target)]);
    const error = expectRefused(answer, 400, "validation_error");
    expect((error.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(["design.primary_color"]);
  });

  it("a multipart price of 64,000 digits and an x is a 400", async () => {
    const boundary = "----lp-hostile";
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const body = `${part("title", "Poster")}${part("product_type", "physical")}${part("price", `${digits}x`)}--${boundary}--\r\n`;
    const answer = await post(target.productsPath, body, `multipart/form-data; boundary=${boundary}`);
    const error = expectRefused(answer, 400, "validation_error");
    expect((error.details as { issues: { path: string }[] }).issues.map((i) => i.path)).toEqual(["price"]);
    await expectHealthy(target);
  });

  it("a media path of 3,000 segments is a 404 with no stack in the log", async () => {
    const answer = await rawExchange(target, (socket) => write(socket, head(target, "GET", `/media/${"a/".repeat(3000)}b.png`, { Connection: "close" })));
    expectRefused(answer, 404, "not_found");
    expect(target.served.proc.stderr).not.toMatch(/ENAMETOOLONG|internal error|\n\s+at /);
    await expectHealthy(target);
  });
});
