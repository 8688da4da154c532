import { beforeAll, describe, expect, it } from "vitest";
import { bearer, expectHealthy, expectRefused, head, rawExchange, useGuardedTarget, write, type Target } from "./hostile-client.js";

/** Multipart and urlencoded forms past their limits: refused by a streaming parser, never a stall. */
describe("hostile forms against lp serve", () => {
  const use = useGuardedTarget();
  let target: Target;
  beforeAll(() => {
    target = use();
  });

  it("refuses a 200k-part multipart product body at the parts limit", async () => {
    const field = '--b\r\nContent-Disposition: form-data; name="images"\r\n\r\nhttps://example.com/a.png\r\n';
    const file = '--b\r\nContent-Disposition: form-data; name="images"; filename="a.png"\r\n\r\nx\r\n';
    // Fields and files each within their own count until the parts limit: that one must hold.
    const body = Buffer.from(`${field.repeat(240)}${file.repeat(200_000 - 240)}--b--\r\n`);
    const answer = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...bearer(target), "Content-Type": "multipart/form-data; boundary=b", "Content-Length": String(body.byteLength) }));
      await write(socket, body);
    });
    const error = expectRefused(answer, 413, "payload_too_large");
    expect(error.details).toMatchObject({ limit: "parts" });
    expect(answer.headers.connection).toBe("close");
    await expectHealthy(target);
  });

  it("refuses one field repeated 200k times in a multipart body", async () => {
    const part = '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n';
    const answer = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...bearer(target), "Content-Type": "multipart/form-data; boundary=b", "Transfer-Encoding": "chunked" }));
      const chunk = part.repeat(1000);
      for (let i = 0; i < 200 && !socket.destroyed; i++) await write(socket, `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`);
      await write(socket, "0\r\n\r\n");
    });
    expect(expectRefused(answer, 413, "payload_too_large").details).toMatchObject({ limit: "fields" });
    await expectHealthy(target);
  });

  it("refuses a checkout form of many fields, and a file in it", async () => {
    const fields = Array.from({ length: 5000 }, (_, i) => `f${i}=x`).join("&");
    const answer = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", "/sites/acct_dev/nowhere/checkout", { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(fields.length) }));
      await write(socket, fields);
    });
    expect(expectRefused(answer, 413, "payload_too_large").details).toMatchObject({ limit: "fields", max: 64 });
    const file = '--b\r\nContent-Disposition: form-data; name="name"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--\r\n';
    const withFile = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", "/sites/acct_dev/nowhere/checkout", { "Content-Type": "multipart/form-data; boundary=b", "Content-Length": String(file.length) }));
      await write(socket, file);
    });
    expect(expectRefused(withFile, 413, "payload_too_large").details).toMatchObject({ limit: "files", max: 0 });
    await expectHealthy(target);
  });
});
