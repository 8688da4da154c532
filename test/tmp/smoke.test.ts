import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { createStores } from "../../core/src/storage/create-storage.js";

it("smoke", async () => {
  const dir = mkdtempSync(join(tmpdir(), "lp-smoke-"));
  const s = createStores("sqlite", dir);
  await s.data.setItem("acct:a:products:p1", { id: "p1", created_at: "2026-01-01T00:00:00.000Z" });
  expect(await s.data.getItem("acct:a:products:p1")).toEqual({ id: "p1", created_at: "2026-01-01T00:00:00.000Z" });
  await s.batch([{ key: "acct:a:products:p2", value: { id: "p2", created_at: "2026-01-02T00:00:00.000Z" } }, { key: "acct:a:products:p1", remove: true }]);
  expect(await s.data.getKeys("acct:a:products")).toEqual(["acct:a:products:p2"]);
  await s.media.setItemRaw("products:x:y.png", Buffer.from([1, 2, 3]));
  expect(Buffer.from((await s.media.getItemRaw("products:x:y.png")) as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
  expect(s.ordered!.newest("acct:a:products", null, 10).map((r) => r[0])).toEqual(["acct:a:products:p2"]);
  await s.dispose();
  expect((statSync(join(dir, "lp.db")).mode & 0o777).toString(8)).toBe("600");
  const again = createStores("sqlite", dir);
  expect(await again.data.getKeys("")).toEqual(["acct:a:products:p2"]);
  await again.dispose();
  rmSync(dir, { recursive: true, force: true });
});
