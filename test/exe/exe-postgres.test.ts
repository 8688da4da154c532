import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable, postgresSkipReason, startPostgresServer, type PostgresServer } from "../../core/src/testing/postgres-server.js";
import type { LpProcess } from "../../cli/src/e2e/processes.js";
import { createExeSandbox, exeBuilt, servedEnv, warnIfMissing } from "./exe-harness.js";

warnIfMissing("the single executable on PostgreSQL (test/exe/exe-postgres.test.ts)");
if (exeBuilt && !postgresAvailable) console.warn(postgresSkipReason("the single executable on PostgreSQL (test/exe/exe-postgres.test.ts)"));

/**
 * `lp serve --storage postgres` from the executable, which carries pg in its bundle (the npm package bundles
 * it too, but resolves nothing from node_modules here): two processes on one database are one service.
 */
describe.skipIf(!exeBuilt || !postgresAvailable)("lp as a single executable, on PostgreSQL", () => {
  let box: ReturnType<typeof createExeSandbox>;
  let postgres: PostgresServer;
  const served: LpProcess[] = [];
  const start = async (url: string, dataDir: string) => {
    const serve = box.spawn(["serve", "--storage", "postgres", "--port", "0", "--data-dir", dataDir, "--print-env", "--quiet"], { LP_DATABASE_URL: url });
    served.push(serve);
    await serve.waitFor("stderr", /^Ready at /m);
    return { serve, env: await servedEnv(serve) };
  };
  beforeAll(async () => {
    box = createExeSandbox();
    postgres = await startPostgresServer({ fsync: false });
  }, 60_000);
  afterAll(async () => {
    for (const serve of served) {
      if (serve.child.exitCode === null) {
        serve.child.kill("SIGTERM");
        await serve.exited;
      }
    }
    await postgres?.dispose();
    box?.remove();
  });

  it("serves one database from two processes, and each exits 0 on SIGTERM", async () => {
    const url = await postgres.createDatabase();
    const one = await start(url, "one");
    const two = await start(url, "two");
    expect(two.env.LP_TOKEN).toBe(one.env.LP_TOKEN);
    const product = await box.run(["products", "create", "--title", "Ferry Pass", "--price", "12", "--type", "service", "--json"], one.env);
    expect(product.code, product.stderr).toBe(0);
    const read = await box.run(["products", "get", product.json().id, "--json"], two.env);
    expect(read.code, read.stderr).toBe(0);
    expect(read.json()).toMatchObject({ title: "Ferry Pass", price: 12 });
    for (const { serve } of [one, two]) {
      serve.child.kill("SIGTERM");
      expect(await serve.exited, serve.stderr).toBe(0);
      expect(serve.stderr).not.toMatch(/warning|error/i);
    }
  }, 60_000);
});
