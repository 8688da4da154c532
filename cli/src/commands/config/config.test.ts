import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../../testing/harness.js";

describe("lp config", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(() => h.close());

  const file = () => join(h.env.XDG_CONFIG_HOME, "lp", "config.json");

  it("sets keys per profile in a 0600 file and reads the effective value", async () => {
    expect((await h.lp(["config", "set", "api_url", "https://lp.example.com"])).code).toBe(0);
    expect((await h.lp(["config", "set", "token", "staging-token", "--profile", "staging"])).code).toBe(0);
    expect(JSON.parse(readFileSync(file(), "utf8"))).toEqual({ profiles: { default: { api_url: "https://lp.example.com" }, staging: { token: "staging-token" } } });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    // LP_API_URL (env) beats the profile; the flag beats both.
    expect((await h.lp(["config", "get", "api_url"])).stdout).toBe("http://lp.test\n");
    expect((await h.lp(["config", "get", "api_url"], { env: { LP_API_URL: undefined } })).stdout).toBe("https://lp.example.com\n");
    expect((await h.lp(["--api-url", "http://flag", "config", "get", "api_url"])).stdout).toBe("http://flag\n");
    expect((await h.lp(["config", "get", "token", "--profile", "staging"], { env: { LP_TOKEN: undefined } })).stdout).toBe("staging-token\n");
    expect((await h.lp(["config", "set", "api_url", ""])).code).toBe(0);
    expect(JSON.parse(readFileSync(file(), "utf8")).profiles.default).toEqual({});
  });

  it("lists values with their sources, secrets masked", async () => {
    const listed = (await h.lp(["config", "list", "--json"])).json();
    const token = listed.find((r: { key: string }) => r.key === "token");
    expect(token).toMatchObject({ source: "env", env: "LP_TOKEN" });
    expect(token.value).toMatch(/…/);
    const shown = (await h.lp(["config", "list", "--json", "--show-secrets"])).json();
    expect(shown.find((r: { key: string }) => r.key === "token").value).toBe(h.env.LP_TOKEN);
  });

  it("refuses unknown keys and unknown profiles", async () => {
    expect((await h.lp(["config", "set", "colour", "blue"])).code).toBe(2);
    const missing = await h.lp(["products", "list", "--profile", "nope"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("Profile 'nope' is not in");
  });
});
