import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FetchLike } from "@lp/client";
import { createTestApp, type TestApp, type TestAppOptions } from "../../../server/src/testing/test-app.js";
import { main } from "../main.js";
import type { ContextDeps } from "../runtime/context.js";
import { createFakeIo, type FakeIoOptions } from "./fake-io.js";

/** The result of one in-process `lp` run. */
export interface LpResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for `--json` runs). */
  json(): any;
}

/**
 * `lp` in-process against a fresh app (`app.request`, no socket), with the dev credentials in the
 * environment, a private config folder and working directory.
 */
export async function createHarness(options: TestAppOptions = {}) {
  const app: TestApp = await createTestApp(options);
  const home = mkdtempSync(join(tmpdir(), "lp-cli-"));
  const env = {
    LP_API_URL: "http://lp.test",
    LP_TOKEN: app.creds.token,
    LP_ACCOUNT: app.creds.account_id,
    LP_APP_ID: app.creds.application_id,
    LP_APP_SECRET: app.creds.client_secret,
    LP_ADMIN_KEY: app.adminKey,
    LP_POLL_INTERVAL_MS: "0",
    XDG_CONFIG_HOME: join(home, "config"),
  };
  const fetch: FetchLike = app.fetch;

  /** Runs `lp ...args`; `io` overrides terminal state, env and stdin; `deps` replaces fetch, the prompter or startServer. */
  async function lp(args: string[], io: FakeIoOptions = {}, deps: Omit<ContextDeps, "fetch"> & { fetch?: FetchLike } = {}): Promise<LpResult> {
    const fake = createFakeIo({ cwd: home, ...io, env: { ...env, ...io.env } });
    const code = await main(args, fake.io, { ...deps, fetch: deps.fetch ?? fetch });
    return { code, stdout: fake.stdout, stderr: fake.stderr, json: () => JSON.parse(fake.stdout) };
  }

  return {
    app,
    env,
    home,
    fetch,
    lp,
    async close() {
      await app.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** What {@link createHarness} returns. */
export type Harness = Awaited<ReturnType<typeof createHarness>>;
