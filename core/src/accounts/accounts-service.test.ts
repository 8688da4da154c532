import { expect, it } from "vitest";
import type { ChangeMark } from "../db/change-mark.js";
import type { Database } from "../db/database.js";
import { createManualClock, cryptoIds } from "../deps.js";
import { describeDatabases } from "../testing/databases.js";
import { assertAccountAccess, createAccountsService } from "./accounts-service.js";
import { createAccountSchema, createAppSchema, createTokenSchema } from "./schemas.js";

/** Every row of the account tables, as text: what a look at the database would show. */
async function allRows(database: Database): Promise<string> {
  const tables = ["accounts", "tokens", "applications", "application_accounts", "settings"] as const;
  return JSON.stringify(await Promise.all(tables.map((table) => database.db.selectFrom(table).selectAll().execute())));
}

describeDatabases("the accounts service", ({ open }) => {
  async function setup() {
    const database = await open();
    const clock = createManualClock("2026-03-01T10:00:00.000Z");
    return { database, clock, accounts: createAccountsService({ database, clock, ids: cryptoIds }) };
  }

  it("stores tokens hashed, and authenticates them until they expire", async () => {
    const { database, clock, accounts } = await setup();
    await accounts.create(createAccountSchema.parse({ account_id: "shop" }));
    const { token } = await accounts.createToken(createTokenSchema.parse({ account_id: "shop", scopes: ["products:read", "products:read"], expires_in: 10 }));
    expect(await allRows(database)).not.toContain(token.slice(3));
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
    const { database, accounts } = await setup();
    await accounts.create(createAccountSchema.parse({ account_id: "shop" }));
    const app = await accounts.createApp(createAppSchema.parse({ name: "Partner", account_ids: ["shop", "shop"] }));
    expect(app.account_ids).toEqual(["shop"]);
    expect(await allRows(database)).not.toContain(app.client_secret);
    expect(await accounts.authenticateApp(app.application_id, app.client_secret)).toEqual({ kind: "app", application_id: app.application_id, account_ids: ["shop"] });
    for (const [id, secret] of [[app.application_id, "wrong"], ["app_000000000000000000000000", app.client_secret], ["../apps", app.client_secret], ["", ""]]) {
      await expect(accounts.authenticateApp(id, secret)).rejects.toMatchObject({ code: "unauthenticated" });
    }
  });

  it("refuses a taken account id, a token of an unknown account, and an application naming one, writing nothing", async () => {
    const { database, accounts } = await setup();
    const made = await accounts.create(createAccountSchema.parse({ account_id: "shop", currency: "EUR" }));
    expect(await accounts.require("shop")).toEqual(made);
    await expect(accounts.create(createAccountSchema.parse({ account_id: "shop" }))).rejects.toMatchObject({ code: "validation_error", details: { issues: [{ path: "account_id", code: "already_exists" }] } });
    expect((await accounts.require("shop")).currency).toBe("EUR");
    const before = await allRows(database);
    await expect(accounts.createToken(createTokenSchema.parse({ account_id: "nobody" }))).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("nobody") });
    await expect(accounts.createApp(createAppSchema.parse({ name: "X", account_ids: ["shop", "ghost"] }))).rejects.toMatchObject({ code: "not_found", message: expect.stringContaining("ghost") });
    expect(await allRows(database)).toBe(before);
    await expect(accounts.require("ghost")).rejects.toMatchObject({ code: "not_found" });
    expect(await accounts.get("../x")).toBeNull();
  });

  it("commits each change with the mark it is given, and rolls both back when the mark refuses", async () => {
    const { database, accounts } = await setup();
    const marks: string[] = [];
    // A mark writes a row of its own in the change's transaction, as an Idempotency-Key's does.
    const mark = (name: string): ChangeMark => async (tx) => {
      await tx.insertInto("settings").values({ name, value: "marked", created_at: "2026-03-01T10:00:00.000Z" }).execute();
      marks.push(name);
    };
    await accounts.create(createAccountSchema.parse({ account_id: "shop" }), mark("account"));
    await accounts.createToken(createTokenSchema.parse({ account_id: "shop" }), mark("token"));
    await accounts.createApp(createAppSchema.parse({ name: "Partner", account_ids: ["shop"] }), mark("app"));
    expect(marks).toEqual(["account", "token", "app"]);
    expect((await database.db.selectFrom("settings").select("name").orderBy("name").execute()).map((r) => r.name)).toEqual(["account", "app", "token"]);

    const refuse = async () => {
      throw new Error("claim lost");
    };
    await expect(accounts.create(createAccountSchema.parse({ account_id: "other" }), refuse)).rejects.toThrow("claim lost");
    await expect(accounts.createToken(createTokenSchema.parse({ account_id: "shop" }), refuse)).rejects.toThrow("claim lost");
    await expect(accounts.createApp(createAppSchema.parse({ name: "Second" }), refuse)).rejects.toThrow("claim lost");
    expect(await accounts.get("other")).toBeNull();
    expect(await database.db.selectFrom("tokens").select("token_hash").execute()).toHaveLength(1);
    expect((await accounts.listApps(10)).map((a) => a.name)).toEqual(["Partner"]);
  });

  it("lists accounts and applications in the order of their ids", async () => {
    const { accounts } = await setup();
    for (const account_id of ["b-shop", "a-shop", "c-shop"]) await accounts.create(createAccountSchema.parse({ account_id }));
    expect((await accounts.list(2)).map((a) => a.account_id)).toEqual(["a-shop", "b-shop"]);
    const apps = [await accounts.createApp(createAppSchema.parse({ name: "One", account_ids: ["c-shop", "a-shop"] })), await accounts.createApp(createAppSchema.parse({ name: "Two" }))];
    const listed = await accounts.listApps(10);
    expect(listed.map((a) => a.application_id)).toEqual(apps.map((a) => a.application_id).sort());
    expect(listed.find((a) => a.name === "One")?.account_ids).toEqual(["c-shop", "a-shop"]);
  });

  it("checks the account before the scope", () => {
    const principal = { kind: "account" as const, account_id: "a", scopes: ["products:read" as const] };
    expect(() => assertAccountAccess(principal, "b", "products:write")).toThrow(expect.objectContaining({ code: "account_mismatch" }));
    expect(() => assertAccountAccess(principal, "a", "products:write")).toThrow(expect.objectContaining({ code: "insufficient_scope", details: { required_scope: "products:write" } }));
    expect(() => assertAccountAccess(principal, "a", "products:read")).not.toThrow();
  });
});
