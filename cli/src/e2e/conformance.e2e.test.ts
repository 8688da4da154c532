import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type Served } from "./processes.js";

describe("lp conformance (built) against lp serve", () => {
  let s: Served;
  beforeAll(async () => {
    s = await startServe();
  });
  afterAll(async () => {
    await s.stop();
  });

  it("passes every check with the credentials lp serve printed, reads the sample image from its own dist, and leaves nothing behind", async () => {
    const narrow = await s.lp(["admin", "tokens", "create", s.env.LP_ACCOUNT, "--scopes", "pages:read", "--json"]);
    expect(narrow.code).toBe(0);
    const result = await s.lp(["conformance"], { env: { LP_NARROW_TOKEN: narrow.json().token } });
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    const rows = result.stdout.replace(/\n$/, "").split("\n").map((line) => line.split("\t"));
    expect(rows.filter(([, , , verdict]) => verdict !== "pass")).toEqual([]);
    expect(rows.map(([id]) => id)).toEqual(expect.arrayContaining(["products.create (multipart)", "deployments.create (in flight)", "errors.insufficient_scope", "webhooks.rotation (both secrets)"]));
    expect(result.stderr).toMatch(/: (\d+) passed, 0 failed, 0 skipped\.\nCleaned up: 11 record\(s\) made, all deleted\.\n$/);
    const runId = /lp conformance (lpc-[0-9a-f]+) against/.exec(result.stderr)![1];
    const left = await s.lp(["products", "list", "--query", runId, "--json"]);
    expect(left.json()).toEqual([]);
  });

  it("exits 2 when the token is refused, before creating anything", async () => {
    const result = await s.lp(["conformance", "--skip-webhooks"], { env: { LP_TOKEN: "lp_not_a_token" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("refused the token (401 unauthenticated)");
    expect(result.stdout).toBe("");
  });
});
