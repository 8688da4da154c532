import { beforeAll, describe, expect, it } from "vitest";
import { bearer, expectHealthy, expectRefused, head, rawExchange, useGuardedTarget, write, writeChunked, type Target } from "./hostile-client.js";

/**
 * Bodies over their limit, sent chunked (no Content-Length to refuse up front) or with a declared length:
 * each is a 413 `payload_too_large` with `Connection: close`, and the process lives on.
 */
describe("oversized bodies against lp serve", () => {
  const use = useGuardedTarget();
  let target: Target;
  beforeAll(() => {
    target = use();
  });

  it("answers a chunked checkout form over 64 KiB with 413 and stays up", async () => {
    for (let run = 0; run < 3; run++) {
      const answer = await rawExchange(target, async (socket) => {
        await write(socket, head(target, "POST", "/sites/acct_dev/nowhere/checkout", { "Content-Type": "application/x-www-form-urlencoded", "Transfer-Encoding": "chunked" }));
        await writeChunked(socket, 70_000);
      });
      expectRefused(answer, 413, "payload_too_large");
      expect(answer.headers.connection).toBe("close");
      await expectHealthy(target);
    }
  });

  it("answers chunked JSON over 1 MiB on /v1 with 413 and stays up", async () => {
    for (let run = 0; run < 3; run++) {
      const answer = await rawExchange(target, async (socket) => {
        await write(socket, head(target, "POST", target.productsPath, { ...bearer(target), "Content-Type": "application/json", "Transfer-Encoding": "chunked" }));
        const start = '{"title":"x","description":"';
        await write(socket, `${start.length.toString(16)}\r\n${start}\r\n`);
        await writeChunked(socket, 2 * 1024 * 1024);
      });
      const error = expectRefused(answer, 413, "payload_too_large");
      expect(error.details).toMatchObject({ limit_bytes: 1024 * 1024 });
      expect(answer.headers.connection).toBe("close");
      await expectHealthy(target);
    }
  });

  it("refuses a declared Content-Length over the limit without waiting for the whole body", async () => {
    const answer = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...bearer(target), "Content-Type": "application/json", "Content-Length": String(50 * 1024 * 1024) }));
      await write(socket, "{\"title\":");
    });
    expectRefused(answer, 413, "payload_too_large");
    expect(answer.headers.connection).toBe("close");
    await expectHealthy(target);
  });
});
