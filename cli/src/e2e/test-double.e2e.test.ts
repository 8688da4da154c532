import { createReceiver } from "@lp/webhooks";
import { describe, expect, it } from "vitest";
import { createSandbox, runLp, startServe } from "./processes.js";

describe("lp serve --clock manual (built): the clock, the request journal and replay from the CLI", () => {
  it("retries on lp clock advance, lp requests --expect sees the calls, lp webhooks replay resends", { timeout: 60_000 }, async () => {
    const s = await startServe(["--clock", "manual"]);
    const receiver = await createReceiver({ respond: [500, 200] });
    try {
      const shown = await s.lp(["clock", "--json"]);
      expect(shown.json().mode).toBe("manual");
      const endpoint = (await s.lp(["webhooks", "create", "--url", `${receiver.url}/hooks`, "--events", "product.created", "--json"])).json();
      receiver.setSecret(endpoint.secret);
      expect((await s.lp(["products", "create", "--title", "Apron", "--price", "42", "--type", "physical"])).code).toBe(0);
      const moved = await s.lp(["clock", "advance", "1m"]);
      expect(moved.code).toBe(0);
      expect(Date.parse(moved.stdout.trim()) - Date.parse(shown.json().now)).toBe(60_000);
      // The first attempt failed; its retry, due about 5 s later, ran within the advance.
      expect(receiver.deliveries.filter((d) => !d.challenge).map((d) => d.response?.status)).toEqual([500, 200]);

      const expected = await s.lp(["requests", "--method", "POST", "--path", "/v1/accounts/*/products", "--expect", "1", "--timeout", "5s", "--json"]);
      expect(expected.code).toBe(0);
      expect(JSON.parse(JSON.parse(expected.stdout.trim().split("\n")[0]).request.body).title).toBe("Apron");
      const unmet = await s.lp(["requests", "--method", "DELETE", "--expect", "1", "--timeout", "200ms"]);
      expect(unmet.code).toBe(1);

      const replayed = await s.lp(["webhooks", "replay", endpoint.id, "--since", "10m"]);
      expect(replayed).toMatchObject({ code: 0, stdout: "1\n" });
      await receiver.expect({ type: "product.created", count: 2, within: 10_000 });
    } finally {
      await receiver.close();
      expect(await s.stop()).toBe(0);
    }
  });

  it("refuses --clock manual with --storage postgres, before anything starts", async () => {
    const sandbox = createSandbox();
    try {
      // Nothing listens on port 1: the refusal comes before any connection.
      const refused = await runLp(["serve", "--storage", "postgres", "--database-url", "postgres://lp@127.0.0.1:1/lp", "--clock", "manual"], { env: sandbox.env, cwd: sandbox.dir });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("--clock manual works with --storage memory or sqlite");
    } finally {
      sandbox.remove();
    }
  });
});
