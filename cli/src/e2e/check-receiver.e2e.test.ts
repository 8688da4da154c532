import { generateSecret } from "@lp/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestReceiver, type ReceiverKind, type TestReceiver } from "../../../packages/webhooks/src/check-receiver.fixture.js";
import { assertBuilt, createSandbox, runLp, spawnLp, startServe, type Served } from "./processes.js";

const FORGED = "tampered-body, wrong-secret, no-signature, malformed-signature, stale-timestamp, future-timestamp, reserialized-json";

let receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function check(kind: ReceiverKind, extra: string[] = []) {
  assertBuilt();
  const secret = generateSecret();
  const receiver = await startTestReceiver(kind, secret);
  receivers.push(receiver);
  const sandbox = createSandbox();
  try {
    const result = await runLp(["check-receiver", receiver.url, "--secret", secret, ...extra], { env: sandbox.env, cwd: sandbox.dir });
    const verdicts = Object.fromEntries(result.stdout.trimEnd().split("\n").map((line) => line.split("\t")).map(([id, , , verdict]) => [id, verdict]));
    return { ...result, verdicts };
  } finally {
    sandbox.remove();
  }
}

describe("lp check-receiver (built)", () => {
  it("exits 0 for a correct receiver on standardwebhooks, every case as expected", async () => {
    const result = await check("correct", ["--expect-challenge"]);
    expect(result.code).toBe(0);
    expect(Object.values(result.verdicts)).toEqual([...Array(10).fill("pass"), "info"]);
    expect(result.stderr).toMatch(/10 passed, 0 failed, 1 info\.\n$/);
  });

  it("exits 0 for a correct receiver on svix, with --json", async () => {
    const result = await check("correct-svix", ["--json"]);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ ok: true, failed: [], counts: { pass: 10, fail: 0, info: 1 } });
  });

  it("exits 1 for a receiver that accepts everything, naming the forged cases", async () => {
    const result = await check("accept-all");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Error: The receiver failed 7 case(s): ${FORGED}.`);
  });

  it("exits 1 for a receiver that ignores the timestamp, naming only the stale and future cases", async () => {
    const result = await check("ignores-timestamp");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Error: The receiver failed 2 case(s): stale-timestamp, future-timestamp.");
  });

  it("exits 1 for a receiver that verifies re-serialised JSON, naming that case", async () => {
    const result = await check("reserialized");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Error: The receiver failed 1 case(s): reserialized-json.");
    expect(result.stdout).toMatch(/^reserialized-json\t4xx\t200\tfail\t[^\t]+\taccepted a signature over re-serialised JSON/m);
  });

  it("exits 1 for a receiver that crashes on bad input, saying crashed", async () => {
    const result = await check("crashes");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^no-signature\t4xx\t500\tfail\t[^\t]+\tcrashed: answered 500/m);
    expect(result.stdout).toMatch(/^malformed-signature\t4xx\t500\tfail\t[^\t]+\tcrashed: answered 500/m);
    expect(result.stderr).toContain("Error: The receiver failed 2 case(s): no-signature, malformed-signature.");
  });

  it("passes lp's own receiver (lp listen), challenge included", async () => {
    assertBuilt();
    const secret = generateSecret();
    const sandbox = createSandbox();
    const listen = spawnLp(["listen", "--secret", secret], { env: sandbox.env, cwd: sandbox.dir });
    try {
      const [, url] = await listen.waitFor("stderr", /Ready: receiving webhooks at (\S+)/);
      const result = await runLp(["check-receiver", url, "--secret", secret, "--expect-challenge"], { env: sandbox.env, cwd: sandbox.dir });
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: `Checked ${new URL(url).href} with product.created: 10 passed, 0 failed, 1 info.\n` });
    } finally {
      listen.child.kill("SIGTERM");
      await listen.exited;
      sandbox.remove();
    }
  });

  describe("the challenge case agrees with lp serve's endpoint verification", () => {
    let s: Served;
    beforeAll(async () => {
      s = await startServe();
    });
    afterAll(async () => {
      await s.stop();
    });

    it.each([
      ["correct", "succeeded", "pass"],
      ["ignores-timestamp", "succeeded", "pass"],
      ["no-challenge", "failed", "fail"],
    ] as const)("%s: lp verify %s, check-receiver's challenge %s", async (kind, outcome, verdict) => {
      // The endpoint's secret is known only once it exists: the receiver learns it then, and lp verifies again.
      const secrets: string[] = [];
      const receiver = await startTestReceiver(kind, secrets);
      receivers.push(receiver);
      const created = await s.lp(["webhooks", "create", "--url", receiver.url, "--events", "product.created", "--json"]);
      expect(created.code).toBe(0);
      const endpoint = created.json();
      secrets.push(endpoint.secret);
      const verified = await s.lp(["webhooks", "verify", endpoint.id, "--json"]);
      expect(verified.code).toBe(outcome === "succeeded" ? 0 : 1);
      const checked = await s.lp(["check-receiver", receiver.url, "--secret", endpoint.secret, "--expect-challenge", "--json"]);
      const challenge = JSON.parse(checked.stdout).cases.find((c: { id: string }) => c.id === "challenge");
      expect(challenge.verdict).toBe(verdict);
    });
  });
});
