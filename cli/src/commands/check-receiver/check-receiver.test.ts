import { generateSecret } from "@lp/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { startTestReceiver, type TestReceiver } from "../../../../packages/webhooks/src/check-receiver.fixture.js";
import { main } from "../../main.js";
import { createFakeIo, type FakeIoOptions } from "../../testing/fake-io.js";

async function lp(args: string[], io: FakeIoOptions = {}) {
  const fake = createFakeIo(io);
  const code = await main(["check-receiver", ...args], fake.io);
  return { code, stdout: fake.stdout, stderr: fake.stderr };
}

let receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

describe("lp check-receiver (in process)", () => {
  it("refuses bad usage with exit 2 and a message naming the flag, sending nothing", async () => {
    const secret = generateSecret();
    const cases: Array<[string[], RegExp]> = [
      [["ftp://x", "--secret", secret], /not an http\(s\) URL/],
      [["http://127.0.0.1:1/"], /--secret: give the secret/],
      [["http://127.0.0.1:1/", "--secret", "not a secret"], /--secret must be/],
      [["http://127.0.0.1:1/", "--secret", secret, "--previous-secret", "x y"], /--previous-secret must be/],
      [["http://127.0.0.1:1/", "--secret", secret, "--event", "product.exploded"], /--event: 'product.exploded' is not an event type/],
      [["http://127.0.0.1:1/", "--secret", secret, "--header", "no-colon"], /--header: 'no-colon' must look like Name: value/],
      [["http://127.0.0.1:1/", "--secret", secret, "--header", "webhook-id: x"], /--header: webhook-id is set by the check/],
      [["http://127.0.0.1:1/", "--secret", secret, "--timeout", "soon"], /--timeout: 'soon' is not a duration/],
      [["http://127.0.0.1:1/", "--secret", secret, "--timeout", "11m"], /--timeout must be from 1ms to 10m/],
    ];
    for (const [args, message] of cases) {
      const result = await lp(args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
    }
  });

  it("prints one tab-separated line per case without a terminal, and exits 0 for a correct receiver", async () => {
    const secret = generateSecret();
    const receiver = await startTestReceiver("correct", secret);
    receivers.push(receiver);
    const result = await lp([receiver.url], { env: { LP_WEBHOOK_SECRET: secret } });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n").map((line) => line.split("\t"));
    expect(lines.map(([id, expected, got, verdict]) => [id, expected, got, verdict])).toEqual([
      ["valid", "2xx", "204", "pass"],
      ["rotation", "2xx", "204", "pass"],
      ["challenge", "200 + echo", "200", "pass"],
      ["tampered-body", "4xx", "400", "pass"],
      ["wrong-secret", "4xx", "400", "pass"],
      ["no-signature", "4xx", "400", "pass"],
      ["malformed-signature", "4xx", "400", "pass"],
      ["stale-timestamp", "4xx", "400", "pass"],
      ["future-timestamp", "4xx", "400", "pass"],
      ["reserialized-json", "4xx", "400", "pass"],
      ["duplicate-id", "2xx (info)", "204, 204", "info"],
    ]);
    expect(result.stderr).toBe(`Checked ${receiver.url} with product.created: 10 passed, 0 failed, 1 info.\n`);
  });

  it("prints a table on a terminal with the notes of what failed, and exits 1 naming the cases", async () => {
    const secret = generateSecret();
    const receiver = await startTestReceiver("ignores-timestamp", secret);
    receivers.push(receiver);
    const result = await lp([receiver.url, "--secret", secret, "--event", "page.created"], { tty: true });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^CASE +EXPECTED +GOT +VERDICT +TIME\n/);
    expect(result.stdout).toMatch(/^stale-timestamp +4xx +200 +fail +\d+ms$/m);
    expect(result.stdout).toMatch(/^valid +2xx +200 +pass +\d+ms$/m);
    expect(result.stdout).toMatch(/^ {2}stale-timestamp: accepted a delivery signed 10 minutes ago/m);
    expect(JSON.parse(receiver.requests[0].body).type).toBe("page.created");
    expect(result.stderr).toContain("2 failed (stale-timestamp, future-timestamp)");
    expect(result.stderr).toContain("Error: The receiver failed 2 case(s): stale-timestamp, future-timestamp. (code: receiver_check_failed)");
  });

  it("prints the report as JSON with --json", async () => {
    const secret = generateSecret();
    const receiver = await startTestReceiver("accept-all", secret);
    receivers.push(receiver);
    const result = await lp([receiver.url, "--secret", secret, "--json", "--header", "X-Token: abc:def"]);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ url: receiver.url, eventType: "product.created", ok: false, counts: { pass: 2, fail: 7, info: 2 } });
    expect(report.cases[0].exchanges[0]).toMatchObject({ status: 200, error: null, signature: expect.stringMatching(/^v1,/) });
    expect(receiver.requests.every((r) => r.headers["x-token"] === "abc:def")).toBe(true);
  });

  it("says when no request got an answer at all", async () => {
    const result = await lp(["http://127.0.0.1:1/hooks", "--secret", generateSecret()]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^valid\t2xx\tECONNREFUSED[^\t]*\tfail\t[^\t]+\tcrashed: no answer/m);
    expect(result.stderr).toContain("No request got an answer: is the receiver running and listening at http://127.0.0.1:1/hooks?");
  });
});
