import { createStorage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createManualClock, cryptoIds } from "../deps.js";
import { assertAccountAccess, createAccountsService } from "./accounts-service.js";
import { ensureAdminKey, ensureDevCredentials } from "./dev-credentials.js";
import { createAccountSchema, createAppSchema, createTokenSchema } from "./schemas.js";

function setup() {
  const storage = createStorage();
  const clock = createManualClock();
  return { storage, clock, accounts: createAccountsService({ storage, clock, ids: cryptoIds }) };
}

describe("accounts service", () => {
  it("stores tokens hashed, and authenticates them until they expire", async () => {
    const { storage, clock, accounts } = setup();
    await accounts.create(createAccountSchema.parse({ account_id: "shop" }));
    const { token } = await accounts.createToken(createTokenSchema.parse({ account_id: "shop", scopes: ["products:read", "products:read"], expires_in: 10 }));
    expect(JSON.stringify(await Promise.all((await storage.getKeys()).map((k) => storage.getItem(k))))).not.toContain(token);
    expect(await accounts.authenticateToken(token)).toEqual({ kind: "account", account_id: "shop", scopes: ["products:read"] });
    clock.advance(9_999);
    await accounts.authenticateToken(token);
    clock.advance(1);
    await expect(accounts.authenticateToken(token)).rejects.toMatchObject({ code: "unauthenticated", message: expect.stringMatching(/expired/) });
    for (const bad of ["", "lp_", "lp_short", `${token}!`, "x".repeat(500), `lp_${"a".repeat(40)}`]) {
      await expect(accounts.authenticateToken(bad)).rejects.toMatchObject({ code: "unauthenticated" });
    }
  });

  it("authenticates applications only with their own secret", async () => {
    const { accounts } = setup();
    const app = await accounts.createApp(createAppSchema.parse({ name: "Partner" }));
    expect(await accounts.authenticateApp(app.application_id, app.client_secret)).toMatchObject({ kind: "app", account_ids: [] });
    for (const [id, secret] of [[app.application_id, "wrong"], ["app_000000000000000000000000", app.client_secret], ["../apps", app.client_secret], ["", ""]]) {
      await expect(accounts.authenticateApp(id, secret)).rejects.toMatchObject({ code: "unauthenticated" });
    }
  });

  it("checks the account before the scope", () => {
    const principal = { kind: "account" as const, account_id: "a", scopes: ["products:read" as const] };
    expect(() => assertAccountAccess(principal, "b", "products:write")).toThrow(expect.objectContaining({ code: "account_mismatch" }));
    expect(() => assertAccountAccess(principal, "a", "products:write")).toThrow(expect.objectContaining({ code: "insufficient_scope", details: { required_scope: "products:write" } }));
    expect(() => assertAccountAccess(principal, "a", "products:read")).not.toThrow();
  });

  it("keeps the same dev credentials, and puts their records back when they are gone", async () => {
    const { storage, clock, accounts } = setup();
    const first = await ensureDevCredentials(storage, clock, cryptoIds);
    expect(await ensureDevCredentials(storage, clock, cryptoIds)).toEqual(first);
    for (const key of await storage.getKeys()) if (!key.startsWith("meta:")) await storage.removeItem(key);
    expect(await ensureDevCredentials(storage, clock, cryptoIds)).toEqual(first);
    expect((await accounts.authenticateToken(first.token)).scopes).toHaveLength(5);
    expect(await accounts.authenticateApp(first.application_id, first.client_secret)).toMatchObject({ account_ids: [first.account_id] });
  });

  it("keeps the generated admin key with the dev credentials; an explicit key wins without replacing it", async () => {
    const { storage } = setup();
    const key = await ensureAdminKey(storage, cryptoIds);
    expect(key).toMatch(/^lpadm_[A-Za-z0-9_-]{32}$/);
    expect(await ensureAdminKey(storage, cryptoIds)).toBe(key);
    expect(await ensureAdminKey(storage, cryptoIds, "explicit-key")).toBe("explicit-key");
    for (const k of await storage.getKeys()) if (!k.startsWith("meta:")) await storage.removeItem(k);
    expect(await ensureAdminKey(storage, cryptoIds)).toBe(key);
  });
});
