import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { configPath, writeConfigFile } from "./config-file.js";
import { DEFAULT_API_URL, resolveConfig } from "./config.js";
import { writeCredentialsFile } from "./credentials-file.js";
import { UsageError } from "./errors.js";

describe("resolveConfig", () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lp-config-"));
    env = { XDG_CONFIG_HOME: join(dir, "xdg") };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const profiles = (value: Record<string, Record<string, string>>) => writeConfigFile(configPath(env), { profiles: value });

  it("takes flag, then env, then profile, then the default", async () => {
    await profiles({ default: { api_url: "http://profile", token: "p-token", account: "p-acct", app_id: "p-app" } });
    const config = await resolveConfig({ token: "f-token" }, { ...env, LP_ACCOUNT: "e-acct" }, dir);
    expect(config.values).toMatchObject({ api_url: "http://profile", token: "f-token", account: "e-acct", app_id: "p-app" });
    expect(config.sources).toMatchObject({ api_url: "profile", token: "flag", account: "env", app_id: "profile", admin_key: "unset" });
    const bare = await resolveConfig({}, env, join(dir, "elsewhere"));
    expect(bare.values.api_url).toBe("http://profile");
    await profiles({});
    expect((await resolveConfig({}, env, dir)).values.api_url).toBe(DEFAULT_API_URL);
  });

  it("selects the profile by --profile, then LP_PROFILE, and refuses an unknown named one", async () => {
    await profiles({ default: { account: "d" }, staging: { account: "s" }, ci: { account: "c" } });
    expect((await resolveConfig({}, { ...env, LP_PROFILE: "staging" }, dir)).values.account).toBe("s");
    expect((await resolveConfig({ profile: "ci" }, { ...env, LP_PROFILE: "staging" }, dir)).values.account).toBe("c");
    await expect(resolveConfig({ profile: "nope" }, env, dir)).rejects.toBeInstanceOf(UsageError);
    expect((await resolveConfig({ profile: "nope" }, env, dir, { allowMissingProfile: true })).profile).toBe("nope");
  });

  it("writes the file with mode 0600", async () => {
    await profiles({ default: { token: "t" } });
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
  });

  it("fills what is missing from ./.lp/credentials.json while the URL is unset or that server's", async () => {
    const creds = { api_url: "http://127.0.0.1:5999", account: "acct_dev", token: "dev-token", app_id: "app_1", app_secret: "sec", admin_key: "adm" };
    await writeCredentialsFile(join(dir, ".lp"), creds);
    const fromFile = await resolveConfig({}, env, dir);
    expect(fromFile.values).toEqual({ api_url: creds.api_url, token: "dev-token", account: "acct_dev", app_id: "app_1", app_secret: "sec", admin_key: "adm" });
    expect(fromFile.sources.token).toBe("credentials-file");
    expect(statSync(join(dir, ".lp", "credentials.json")).mode & 0o777).toBe(0o600);
    const sameUrl = await resolveConfig({ apiUrl: "http://127.0.0.1:5999/", token: "mine" }, env, dir);
    expect(sameUrl.values).toMatchObject({ token: "mine", account: "acct_dev" });
    const otherUrl = await resolveConfig({ apiUrl: "https://lp.example.com" }, env, dir);
    expect(otherUrl.values.token).toBeUndefined();
    expect(otherUrl.credentialsPath).toBeUndefined();
  });

  it("reports a broken config file as a usage error", async () => {
    mkdirSync(join(env.XDG_CONFIG_HOME, "lp"), { recursive: true });
    writeFileSync(configPath(env), "{nope");
    await expect(resolveConfig({}, env, dir)).rejects.toThrow(/not valid JSON/);
  });
});
