import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLp, type Lp } from "../../start-lp/start-lp.js";
import { AREAS } from "./types.js";
import { createConformanceRunner, leftovers, runIdOf } from "./conformance.fixture.js";

let lp: Lp<null>;
let runner: ReturnType<typeof createConformanceRunner>;
beforeAll(async () => {
  lp = await startLp({ webhooks: false });
  runner = createConformanceRunner(lp);
});
afterAll(async () => {
  runner.remove();
  await lp.close();
});

const nothingLeft = { products: [], pages: [], endpoints: [] };

describe("lp conformance against lp", () => {
  it("passes every check, with a narrow token; deletes all it made, touches and names nothing else", async () => {
    const foreign = await lp.client.products.create({ title: "Someone else's apron", price: 10, product_type: "physical" });
    const narrow = await lp.client.admin.createToken({ account_id: lp.credentials.accountId, scopes: ["products:read", "pages:read"] });
    const result = await runner.run(["--json"], { env: { LP_NARROW_TOKEN: narrow.token } });
    const report = result.report();
    expect(report.checks.filter((c) => c.verdict !== "pass")).toEqual([]);
    expect(result.code).toBe(0);
    expect(report).toMatchObject({ ok: true, failed: [], aborted: null, counts: { fail: 0, skip: 0 }, cleanup: { kept: false, left: [] } });
    expect(report.counts.pass).toBe(report.checks.length);
    // The --json report's shape: the whole report, and each check with what was asked, expected and got.
    expect(Object.keys(report)).toEqual(["ok", "target", "run_id", "started_at", "duration_ms", "counts", "checks", "failed", "aborted", "created", "cleanup"]);
    expect(report).toMatchObject({ target: { api_url: lp.url, account: lp.credentials.accountId, application: lp.credentials.appId }, run_id: expect.stringMatching(/^lpc-[0-9a-f]{8}$/) });
    expect(report.checks[0]).toEqual({
      id: "products.create",
      area: "products",
      verdict: "pass",
      expected: "201 with the product",
      got: "201",
      problems: [],
      request: `POST /v1/accounts/${lp.credentials.accountId}/products`,
    });
    expect(report.created[0]).toEqual({ kind: "product", id: expect.any(String), label: "product (JSON)", deleted: true });
    expect(new Set(report.checks.map((c) => c.area))).toEqual(new Set(AREAS));
    expect(report.checks.find((c) => c.id === "errors.insufficient_scope")).toMatchObject({ verdict: "pass", got: "403", note: "the token holds products:read" });

    // Said up front, before anything was made; everything made is deleted and nothing of the run remains.
    expect(result.stderr.indexOf(`lp conformance ${report.run_id} against ${lp.url}, account ${lp.credentials.accountId}`)).toBe(0);
    expect(result.stderr.indexOf("It will create")).toBeLessThan(result.stderr.indexOf("Checking products"));
    expect(report.created.filter((r) => !r.deleted)).toEqual([]);
    expect(report.created.map((r) => r.kind).sort()).toEqual(["deployment", "job", "job", "page", "page", "product", "product", "product", "product", "product", "webhook_endpoint"]);
    expect(await leftovers(lp, report.run_id)).toEqual(nothingLeft);

    // The record that was there before is untouched and never named.
    expect(await lp.client.products.get(foreign.id)).toEqual(foreign);
    expect(result.stdout + result.stderr).not.toContain(foreign.id);
    expect(result.stdout + result.stderr).not.toContain(foreign.title);
  });

  it("prints one tab-separated line per check off a terminal, the summary on stderr, and skips the 403 without --narrow-token", async () => {
    const result = await runner.run(["--skip-webhooks"]);
    expect(result.code).toBe(0);
    const rows = result.stdout.replace(/\n$/, "").split("\n").map((line) => line.split("\t"));
    expect(rows.every((row) => row.length === 5)).toBe(true);
    expect(rows[0]).toEqual(["products.create", "201 with the product", "201", "pass", ""]);
    expect(rows.find((row) => row[0] === "errors.insufficient_scope")).toEqual([
      "errors.insufficient_scope",
      "403 insufficient_scope naming the scope the --narrow-token lacks",
      "-",
      "skip",
      "no --narrow-token given (a token of the same account without one of the scopes)",
    ]);
    expect(rows.find((row) => row[0] === "webhooks")?.slice(3)).toEqual(["skip", "--skip-webhooks"]);
    expect(rows.find((row) => row[0] === "errors.unauthenticated (developer)")?.slice(3)).toEqual(["skip", "no application id and secret (--skip-webhooks)"]);
    expect(result.stderr).toMatch(/: \d+ passed, 0 failed, 3 skipped\.\nCleaned up: 10 record\(s\) made, all deleted\.\n$/);
    expect(result.stderr).not.toContain("webhook endpoint");
    expect(await leftovers(lp, runIdOf(result.stderr))).toEqual(nothingLeft);
  });

  it("stops at Ctrl-C, exits 1, and still deletes what it made (a job still generating is waited for)", async () => {
    const result = await runner.run(["--json", "--skip-webhooks"], {
      onStart: (fake) => void fake.waitForStderr(/Checking pages\.\.\./).then(() => fake.shutdown()),
    });
    const report = result.report();
    expect(result.code).toBe(1);
    // The request in flight was let finish (its job is known, and its page deleted with the rest); the
    // next one was never sent.
    expect(report.aborted).toEqual({ step: "pages.create (inline product)", reason: "interrupted" });
    expect(report.created.filter((r) => r.kind === "job")).toHaveLength(1);
    expect(report.created.every((r) => r.deleted)).toBe(true);
    expect(report.checks.filter((c) => c.note?.startsWith("not run")).map((c) => c.id)).toEqual(["deployments", "errors", "webhooks"]);
    expect(result.stderr).toContain("Stopped at pages.create (inline product): interrupted.");
    expect(result.stderr).toMatch(/Cleaned up: \d+ record\(s\) made, all deleted\.\nError: Interrupted at pages\.create \(inline product\)\. \(code: interrupted\)\n$/);
    expect(await leftovers(lp, report.run_id)).toEqual(nothingLeft);
  });

  it("receives the webhooks through --tunnel (a stand-in: no internet here) and keeps what it made with --keep", async () => {
    const asked: string[] = [];
    let closed = 0;
    const startTunnel = async ({ url }: { url: string }) => {
      asked.push(url);
      return { getURL: async () => `${url.replace("127.0.0.1", "localhost")}/`, close: async () => void closed++ };
    };
    const result = await runner.run(["--tunnel", "--keep", "--json"], { deps: { startTunnel } });
    const report = result.report();
    expect(result.code).toBe(0);
    expect(asked).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/)]);
    const tunnelUrl = asked[0].replace("127.0.0.1", "localhost");
    expect(result.stderr).toContain(`Tunnel: ${tunnelUrl} -> ${asked[0]}`);
    expect(result.stderr).toContain(`pointing at ${tunnelUrl}/lp-conformance/${report.run_id}`);
    expect(report.checks.filter((c) => c.area === "webhooks").every((c) => c.verdict === "pass")).toBe(true);
    expect(closed).toBe(1);

    expect(report.cleanup).toEqual({ kept: true, deleted: [], left: [] });
    const kept = await leftovers(lp, report.run_id);
    expect(kept.products).toHaveLength(4);
    expect(kept.pages).toHaveLength(1);
    expect(result.stderr).toMatch(/Kept \(--keep\): product [0-9a-f-]{36}, /);
    for (const id of kept.pages) await lp.client.pages.delete(id);
    for (const id of kept.products) await lp.client.products.delete(id);
  });

  it("exits 2 before creating anything when the instance is unreachable, credentials are refused or missing, or the tunnel fails", async () => {
    const before = (await lp.client.products.list({ per_page: 100 })).data.length;
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [[`http://127.0.0.1:${closed}`], { LP_API_URL: "" }, /Could not reach http:\/\/127\.0\.0\.1:\d+ \(.*no answer.*\)\. Nothing was created\. \(code: unreachable\)/],
      [["--token", "lp_wrong"], {}, /refused the token \(401 unauthenticated\)/],
      [[], { LP_APP_SECRET: "not-the-secret" }, /refused the application id and secret \(401 unauthenticated\)/],
      [[], { LP_APP_ID: "", LP_APP_SECRET: "" }, /The webhook checks need an application: pass --app-id and --app-secret/],
      [["--tunnel"], {}, /the tunnel did not start .* Nothing was created\. \(code: tunnel_failed\)/],
    ];
    for (const [args, env, message] of cases) {
      const result = await runner.run(args, { env, deps: { startTunnel: async () => undefined } });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain("It will create");
    }
    expect((await lp.client.products.list({ per_page: 100 })).data).toHaveLength(before);
  });

  it("refuses bad usage with exit 2 and a message naming the flag", async () => {
    writeFileSync(join(runner.home, "notes.txt"), "not an image");
    const cases: Array<[string[], RegExp]> = [
      [["ftp://x"], /'ftp:\/\/x' is not an http\(s\) URL/],
      [["http://a.test", "--api-url", "http://b.test"], /as the argument or as --api-url, not both/],
      [["--tunnel", "--skip-webhooks"], /--tunnel is for the webhook checks/],
      [["--poll-interval", "1s"], /--poll-interval: must be from 2s to 5s/],
      [["--job-timeout", "soon"], /--job-timeout: 'soon' is not a duration/],
      [["--deploy-timeout", "2h"], /--deploy-timeout must be from 1ms to 1h/],
      [["--webhook-environment", "staging"], /--webhook-environment: 'staging' must be one of production, test/],
      [["--image", "/nonexistent/apron.png"], /--image: '\/nonexistent\/apron.png' is not a file/],
      [["--image", "notes.txt"], /--image: 'notes.txt' must be a .png, .jpg/],
      [["http://127.0.0.1:4010/v1/"], /without \/v1: http:\/\/127.0.0.1:4010$/m],
    ];
    for (const [args, message] of cases) {
      const result = await runner.run(args, { env: { LP_POLL_INTERVAL_MS: "" } });
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(message);
    }
  });
});
