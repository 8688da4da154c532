import * as lpContract from "@lp/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createContext } from "../../runtime/context.js";
import { startLp, type Lp } from "../../start-lp/start-lp.js";
import { createFakeIo } from "../../testing/fake-io.js";
import { conform, toOptions } from "./conformance.js";
import { createConformanceRunner, leftovers } from "./conformance.fixture.js";
import type { Contract } from "./contract.js";
import type { ConformanceReport } from "./types.js";

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

/** Runs the command's `conform` in process with `contract` in place of @lp/contract. */
async function conformWith(contract: Contract): Promise<{ error: unknown; report: ConformanceReport }> {
  const fake = createFakeIo({ cwd: runner.home, env: { ...lp.env, LP_POLL_INTERVAL_MS: "50", XDG_CONFIG_HOME: `${runner.home}/config` } });
  const ctx = createContext(fake.io, {});
  const opts = toOptions({ args: [], flags: { skipWebhooks: true, json: true } }, ctx);
  const error = await conform(opts, ctx, { contract }).then(() => null, (e: unknown) => e);
  return { error, report: JSON.parse(fake.stdout) };
}

describe("lp conformance takes its checks from @lp/contract", () => {
  it("fails, naming the field, when the contract's product requires a field lp does not send; and by the error table's status", async () => {
    const changed: Contract = {
      ...lpContract,
      productResponse: lpContract.dataOf(lpContract.productSchema.extend({ warranty_months: z.number().int() })),
      ERROR_STATUS: { ...lpContract.ERROR_STATUS, not_found: 410 },
    };
    const { error, report } = await conformWith(changed);
    expect(error).toMatchObject({ name: "CliError", exitCode: 1, code: "conformance_failed" });
    expect(report.failed).toEqual(
      expect.arrayContaining([
        "products.create: data.warranty_months missing",
        "products.create (multipart): data.warranty_months missing",
        "products.get: data.warranty_months missing",
        "products.update: data.warranty_months missing",
        "idempotency (first request): data.warranty_months missing",
        "products.get (unknown id): status 404, expected 410",
        "pages.get (deleted): status 404, expected 410",
      ]),
    );
    // Nothing else departs: every failure comes from one of the two changes.
    expect(report.failed.filter((f) => !/data\.warranty_months missing$|status 404, expected 410$/.test(f))).toEqual([]);
    expect(report.checks.find((c) => c.id === "pages.create (product_id)")?.verdict).toBe("pass");
    expect(await leftovers(lp, report.run_id)).toEqual({ products: [], pages: [], endpoints: [] });
  });

  it("passes with the contract as it is", async () => {
    const { error, report } = await conformWith(lpContract);
    expect(error).toBeNull();
    expect(report.failed).toEqual([]);
  });
});
