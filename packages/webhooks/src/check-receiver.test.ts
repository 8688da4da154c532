import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestReceiver, verifyWithLibrary, type ReceiverKind, type TestReceiver } from "./check-receiver.fixture.js";
import { checkReceiver } from "./check-receiver.js";
import type { CheckCaseId, CheckReport } from "./check-receiver-types.js";
import { generateSecret } from "./secret.js";

const FORGED: CheckCaseId[] = ["tampered-body", "wrong-secret", "no-signature", "malformed-signature", "stale-timestamp", "future-timestamp", "reserialized-json"];

let receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function start(kind: ReceiverKind, secrets: string | string[], options?: { requireHeader?: [string, string] }) {
  const receiver = await startTestReceiver(kind, secrets, options);
  receivers.push(receiver);
  return receiver;
}

/** A bare server for answers no library receiver gives: endless bodies, dropped sockets. */
async function startRaw(listener: RequestListener) {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receivers.push({ url: "", requests: [], close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const verdicts = (report: CheckReport) => Object.fromEntries(report.cases.map((c) => [c.id, c.verdict]));

describe("checkReceiver against receivers built on standardwebhooks and svix", () => {
  it.each(["correct", "correct-svix"] as const)("passes a correct receiver (%s): every case as expected", async (kind) => {
    const secret = generateSecret();
    const receiver = await start(kind, secret);
    const report = await checkReceiver({ url: receiver.url, secret, expectChallenge: true });
    expect(report.failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(verdicts(report)).toEqual({
      valid: "pass",
      rotation: "pass",
      challenge: "pass",
      ...Object.fromEntries(FORGED.map((id) => [id, "pass"])),
      "duplicate-id": "info",
    });
    expect(report.cases.find((c) => c.id === "stale-timestamp")).toMatchObject({ expected: "refuse", got: "400", note: "refused" });
    expect(report.cases.find((c) => c.id === "duplicate-id")!.got).toBe("204, 204");
    expect(report.counts).toEqual({ pass: 10, fail: 0, info: 1 });
  });

  it("sends real signed deliveries: the valid ones verify with both libraries, the forged ones with neither", async () => {
    const secret = generateSecret();
    const receiver = await start("accept-all", secret);
    const report = await checkReceiver({ url: receiver.url, secret });
    const ids = report.cases.flatMap((c) => c.exchanges.map(() => c.id));
    expect(receiver.requests).toHaveLength(ids.length);
    receiver.requests.forEach((request, index) => {
      const valid = !FORGED.includes(ids[index]);
      for (const library of ["standardwebhooks", "svix"] as const) {
        expect({ id: ids[index], library, verified: verifyWithLibrary(library, [secret], request.body, request.headers) !== null }).toEqual({ id: ids[index], library, verified: valid });
      }
    });
    const valid = JSON.parse(receiver.requests[0].body);
    expect(valid).toMatchObject({ type: "product.created", environment: "test", data: { title: "Linen apron — stonewashed", price: 42 } });
    expect(receiver.requests[0].headers).toMatchObject({ "content-type": "application/json", "webhook-event-type": "product.created", "webhook-attempt": "1" });
    const [first, repeat] = receiver.requests.slice(-2);
    expect(repeat.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(repeat.body).toBe(first.body);
    expect(repeat.headers["webhook-attempt"]).toBe("2");
  });

  it("fails a receiver that accepts everything, naming every forged case", async () => {
    const secret = generateSecret();
    const receiver = await start("accept-all", secret);
    const report = await checkReceiver({ url: receiver.url, secret });
    expect(report.ok).toBe(false);
    expect(report.failed).toEqual(FORGED);
    expect(report.cases.find((c) => c.id === "wrong-secret")).toMatchObject({ got: "200", note: expect.stringContaining("another secret") });
    // Without --expect-challenge a receiver without challenges is information, not a failure.
    expect(report.cases.find((c) => c.id === "challenge")).toMatchObject({ verdict: "info", note: expect.stringContaining("without echoing the nonce") });
  });

  it("fails a receiver that ignores the timestamp, naming only the stale and future cases", async () => {
    const secret = generateSecret();
    const receiver = await start("ignores-timestamp", secret);
    const report = await checkReceiver({ url: receiver.url, secret, expectChallenge: true });
    expect(report.failed).toEqual(["stale-timestamp", "future-timestamp"]);
    expect(report.cases.find((c) => c.id === "stale-timestamp")!.note).toContain("replayed");
    // This one echoes the bare nonce, which lp also accepts.
    expect(verdicts(report).challenge).toBe("pass");
  });

  it("fails a receiver that verifies re-serialised JSON, naming that case", async () => {
    const secret = generateSecret();
    const receiver = await start("reserialized", secret);
    const report = await checkReceiver({ url: receiver.url, secret });
    expect(report.failed).toEqual(["reserialized-json"]);
    expect(report.cases.find((c) => c.id === "reserialized-json")!.note).toContain("raw body");
  });

  it("reports a receiver that fails with a 500 on bad input as crashed", async () => {
    const secret = generateSecret();
    const receiver = await start("crashes", secret);
    const report = await checkReceiver({ url: receiver.url, secret });
    expect(report.failed).toEqual(["no-signature", "malformed-signature"]);
    for (const id of report.failed) expect(report.cases.find((c) => c.id === id)).toMatchObject({ got: "500", note: expect.stringMatching(/^crashed/) });
  });

  it("reports a timeout as crashed", async () => {
    const secret = generateSecret();
    const receiver = await start("silent", secret);
    const report = await checkReceiver({ url: receiver.url, secret, timeoutMs: 200 });
    expect(report.failed).toEqual(report.cases.map((c) => c.id));
    expect(report.cases[0]).toMatchObject({ got: "timeout after 200 ms", note: "crashed: no answer (timeout after 200 ms)" });
  });

  it("does not follow redirects and says where they went", async () => {
    const secret = generateSecret();
    const receiver = await start("redirect", secret);
    const report = await checkReceiver({ url: receiver.url, secret });
    expect(receiver.requests).toHaveLength(12);
    expect(report.cases[0]).toMatchObject({ id: "valid", verdict: "fail", got: "307 → /elsewhere", note: expect.stringContaining("never follows redirects") });
  });

  it("fails a receiver without challenges only with expectChallenge", async () => {
    const secret = generateSecret();
    const receiver = await start("no-challenge", secret);
    expect((await checkReceiver({ url: receiver.url, secret })).ok).toBe(true);
    const strict = await checkReceiver({ url: receiver.url, secret, expectChallenge: true });
    expect(strict.failed).toEqual(["challenge"]);
    expect(strict.cases.find((c) => c.id === "challenge")).toMatchObject({ got: "204", note: expect.stringContaining("answered 204, not 200") });
  });

  it("checks the previous secret of a rotation when given, and sends the extra headers", async () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const both = await start("correct", [current, previous], { requireHeader: ["authorization", "Bearer t0k"] });
    const report = await checkReceiver({ url: both.url, secret: current, previousSecret: previous, headers: { Authorization: "Bearer t0k" } });
    expect(report.ok).toBe(true);
    expect(report.cases.map((c) => c.id).slice(0, 3)).toEqual(["valid", "rotation", "previous-secret"]);
    const forgetful = await start("correct", current, { requireHeader: ["authorization", "Bearer t0k"] });
    const stale = await checkReceiver({ url: forgetful.url, secret: current, previousSecret: previous, headers: { authorization: "Bearer t0k" } });
    expect(stale.failed).toEqual(["previous-secret"]);
    const unauthenticated = await checkReceiver({ url: forgetful.url, secret: current });
    expect(unauthenticated.failed).toEqual(["valid", "rotation"]);
  });

  it("delivers the sample of the chosen event type, or the caller's own event", async () => {
    const secret = generateSecret();
    const receiver = await start("correct", secret);
    await checkReceiver({ url: receiver.url, secret, event: "deployment.succeeded" });
    expect(JSON.parse(receiver.requests[0].body)).toMatchObject({ type: "deployment.succeeded", data: { status: "succeeded" } });
    await checkReceiver({ url: receiver.url, secret, event: { type: "order.paid", data: { total: 12 } } });
    expect(JSON.parse(receiver.requests[12].body)).toMatchObject({ type: "order.paid", data: { total: 12 } });
  });

  it("refuses bad options with a TypeError, before sending anything", async () => {
    const secret = generateSecret();
    const cases: Array<[Parameters<typeof checkReceiver>[0], RegExp]> = [
      [{ url: "ftp://x", secret }, /http or https/],
      [{ url: "not a url", secret }, /not a URL/],
      [{ url: "http://u:p@127.0.0.1/", secret }, /credentials/],
      [{ url: "http://127.0.0.1/", secret: "not base64!" }, /secret must be/],
      [{ url: "http://127.0.0.1/", secret, previousSecret: "" }, /previousSecret must be/],
      [{ url: "http://127.0.0.1/", secret, headers: { "webhook-signature": "v1,x" } }, /set by the check/],
      [{ url: "http://127.0.0.1/", secret, headers: { "x-a": "b\r\nc: d" } }, /one line/],
      [{ url: "http://127.0.0.1/", secret, timeoutMs: 0 }, /timeoutMs/],
      [{ url: "http://127.0.0.1/", secret, event: "nope.nope" as never }, /no sample/],
    ];
    for (const [options, message] of cases) await expect(checkReceiver(options)).rejects.toThrow(message);
  });

  it("reads at most 64 KiB of an endless answer and goes on", async () => {
    const secret = generateSecret();
    const chunk = Buffer.alloc(16 * 1024, "a");
    const url = await startRaw((req, res) => {
      req.resume();
      res.writeHead(200);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    const report = await checkReceiver({ url, secret });
    expect(report.cases[0]).toMatchObject({ id: "valid", verdict: "pass", got: "200" });
    expect(report.cases[0].exchanges[0].body).toHaveLength(1024);
    expect(report.cases.find((c) => c.id === "challenge")!.verdict).toBe("info");
  });

  it("reports a connection dropped without an answer as crashed", async () => {
    const secret = generateSecret();
    const url = await startRaw((req) => req.socket.destroy());
    const report = await checkReceiver({ url, secret });
    expect(report.failed).toEqual(report.cases.map((c) => c.id));
    expect(report.cases[0].note).toMatch(/^crashed: no answer \(ECONNRESET|^crashed: no answer \(socket hang up/);
  });
});
