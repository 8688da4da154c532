import { beforeAll, describe, expect, it } from "vitest";
import { bearer, expectClientErrorOrClose, expectHealthy, expectRefused, head, rawExchange, useGuardedTarget, write, type Target } from "./hostile-client.js";

/** Requests a careless or hostile client sends: each a clear 4xx or a closed connection, never a stall. */
describe("malformed requests against lp serve", () => {
  const use = useGuardedTarget();
  let target: Target;
  beforeAll(() => {
    target = use();
  });
  const json = () => ({ ...bearer(target), "Content-Type": "application/json" });

  it("answers a slow body when it is complete, and others meanwhile", async () => {
    const body = JSON.stringify({ title: "", price: 1, product_type: "service" });
    const answer = rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Content-Length": String(body.length) }));
      for (let i = 0; i < body.length; i += 8) {
        await write(socket, body.slice(i, i + 8));
        if (i === 16) await expectHealthy(target); // the slow client holds nobody else up
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    expectRefused(await answer, 400, "validation_error");
    await expectHealthy(target);
  });

  it("survives bodies that stop half-way, declared or chunked", async () => {
    const cut = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Content-Length": "200" }));
      await write(socket, '{"title":"Half","price":1,');
      socket.end();
    });
    // The client stopped sending: a 400, or the connection closed without an answer.
    expectClientErrorOrClose(cut);
    const chunked = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Transfer-Encoding": "chunked" }));
      await write(socket, '40\r\n{"title":"Half"');
      socket.destroy();
    });
    expect(chunked.closed).toBe(true);
    await expectHealthy(target);
  });

  it("waits out a Content-Length larger than the body without holding up others, and answers a smaller one", async () => {
    const larger = rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Content-Length": "5000" }));
      await write(socket, JSON.stringify({ title: "Lying", price: 1, product_type: "service" }));
      await expectHealthy(target);
      socket.end(); // the rest never comes
    });
    expectClientErrorOrClose(await larger);
    const smaller = await rawExchange(target, async (socket) => {
      const body = JSON.stringify({ title: "Lying", price: 1, product_type: "service" });
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Content-Length": "12" }));
      await write(socket, body);
    });
    // The body ends after 12 bytes; what follows is not a request: Node answers 400 and closes.
    expect(smaller.status).toBe(400);
    expectClientErrorOrClose(smaller);
    await expectHealthy(target);
  });

  it("refuses JSON that is not UTF-8", async () => {
    const body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","price":1,"product_type":"service"}')]);
    const answer = await rawExchange(target, async (socket) => {
      await write(socket, head(target, "POST", target.productsPath, { ...json(), "Content-Length": String(body.byteLength) }));
      await write(socket, body);
    });
    expect(expectRefused(answer, 400, "invalid_json").message).toContain("UTF-8");
    await expectHealthy(target);
  });

  it("refuses deep and wide JSON with a 4xx", async () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])));
    for (const body of [deep, `{"title":${deep}}`, wide]) {
      const res = await fetch(`${target.url}${target.productsPath}`, { method: "POST", headers: json(), body });
      expect(res.status, body.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect((await res.json()).error.code).toMatch(/^(invalid_json|validation_error|payload_too_large)$/);
      await expectHealthy(target);
    }
  });

  it("refuses duplicate query parameters with a 400", async () => {
    const res = await fetch(`${target.url}${target.productsPath}?per_page=1&per_page=2&sort=title&sort=-title&q=a&q=b`, { headers: bearer(target) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("validation_error");
    await expectHealthy(target);
  });

  it("refuses huge headers with 431 and closes", async () => {
    const answer = await rawExchange(target, (socket) => write(socket, head(target, "GET", target.productsPath, { ...bearer(target), "X-Filler": "x".repeat(100_000) })));
    expect(answer.status).toBe(431);
    const many = await rawExchange(target, (socket) =>
      write(socket, head(target, "GET", "/healthz", Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`X-H${i}`, "y"])))),
    );
    expect(many.status).toBe(431);
    await expectHealthy(target);
  });

  it("answers many parallel connections", async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        rawExchange(target, (socket) => write(socket, head(target, "GET", i % 2 ? "/healthz" : `${target.productsPath}?per_page=5`, { ...bearer(target), Connection: "close" }))),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    await expectHealthy(target);
  });
});
