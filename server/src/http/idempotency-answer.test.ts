import { LpError } from "@lp/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { useTempDirs } from "../../../core/src/testing/temp-dirs.js";
import { createTestApp, type TestApp } from "../testing/test-app.js";
import { data } from "./respond.js";
import { defineRoute, jsonBody, type RouteDef } from "./route.js";

const tempDir = useTempDirs();
const at = "2026-03-01T10:00:00.000Z";

/**
 * A route of the account plane whose change is a row of the `settings` table ("note:<n>"), written with the
 * request's mark in one transaction, as a service makes its change. `after` runs once the change committed
 * and before the answer; `refuse` makes the change's transaction fail after its row and mark were written.
 */
function notesRoute(behaviour: { after?: () => Promise<void>; refuse?: boolean }): RouteDef {
  let made = 0;
  return defineRoute({
    method: "POST",
    path: "/v1/accounts/:account_id/notes",
    plane: "account",
    scope: "products:write",
    body: jsonBody(z.strictObject({ text: z.string() })),
    internal: true,
    handler: async ({ server, input, change }) => {
      const name = `note:${++made}:${server.core.ids.uuid()}`;
      await server.core.database.transaction(async (tx) => {
        await tx.insertInto("settings").values({ name, value: input.text, created_at: at }).execute();
        await change?.(tx);
        if (behaviour.refuse) throw new LpError("insufficient_storage", "The disk is full.", { retry_after_seconds: 30 });
      });
      await behaviour.after?.();
      return data({ name }, 201);
    },
  });
}

const notes = async (t: TestApp) => (await t.core.database.db.selectFrom("settings").select("value").where("name", "like", "note:%").execute()).map((row) => row.value);
const post = (t: TestApp, text: string, key: string) => t.call("POST", "notes", { body: { text }, headers: { "idempotency-key": key } });

/**
 * An Idempotency-Key's mark commits in the same transaction as the request's change, before the answer is
 * stored: when the process stops in between, the next start knows the change was made, and the key never
 * runs the request a second time.
 */
describe("an idempotent request whose answer was lost after its change was made (SQLite)", () => {
  it("is not run again: the retry is told the change is kept, and the change exists once", async () => {
    const dir = tempDir("idem-answer");
    let answering!: () => void;
    const answerStarted = new Promise<void>((resolve) => (answering = resolve));
    // The first run commits its change and mark, then never answers, as when the process is killed then.
    const first = await createTestApp({ dataDir: dir, extraRoutes: [notesRoute({ after: () => (answering(), new Promise(() => {})) })] });
    let next: TestApp | undefined;
    try {
      void post(first, "lamp", "k-lost");
      await answerStarted;
      expect(await notes(first)).toEqual(["lamp"]);

      // The next start on the data dir: the claim the stopped process held is over.
      next = await createTestApp({ dataDir: dir, extraRoutes: [notesRoute({})] });
      expect(next.account).toBe(first.account);
      const retry = await post(next, "lamp", "k-lost");
      expect(retry.status).toBe(409);
      expect(retry.json.error.code).toBe("idempotency_key_in_use");
      expect(retry.json.error.message).toContain("made its change, but lp stopped before it could store the answer");
      expect(await notes(next)).toEqual(["lamp"]);
      // Another body with the same key is still another request.
      expect((await post(next, "other", "k-lost")).status).toBe(422);
      // A new key runs as usual.
      expect((await post(next, "lamp", "k-new")).status).toBe(201);
      expect(await notes(next)).toHaveLength(2);
    } finally {
      await next?.close();
      await first.close();
    }
  });

  it("is refused whole when the change cannot be written: nothing is kept and the retry runs", async () => {
    const behaviour = { refuse: true };
    const t = await createTestApp({ dataDir: tempDir("idem-refused"), extraRoutes: [notesRoute(behaviour)] });
    try {
      const refused = await post(t, "lamp", "k-full");
      expect(refused.status).toBe(507);
      expect(await notes(t)).toEqual([]);
      behaviour.refuse = false;
      const retry = await post(t, "lamp", "k-full");
      expect(retry.status).toBe(201);
      const replay = await post(t, "lamp", "k-full");
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.json).toEqual(retry.json);
      expect(await notes(t)).toEqual(["lamp"]);
    } finally {
      await t.close();
    }
  });

  it("keeps the answer of a change that was made, even one not worth replaying", async () => {
    const behaviour: { after?: () => Promise<void> } = {
      after: async () => {
        throw new Error("the answer could not be built");
      },
    };
    const t = await createTestApp({ dataDir: tempDir("idem-kept"), extraRoutes: [notesRoute(behaviour)] });
    try {
      const failed = await post(t, "lamp", "k-500");
      expect(failed.status).toBe(500);
      behaviour.after = undefined;
      const again = await post(t, "lamp", "k-500");
      expect(again.status).toBe(500);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.text).toBe(failed.text);
      expect(await notes(t)).toEqual(["lamp"]);
    } finally {
      await t.close();
    }
  });
});
