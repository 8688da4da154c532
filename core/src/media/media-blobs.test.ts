import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Storage } from "unstorage";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Database, DatabaseTarget } from "../db/database.js";
import { describeDatabases } from "../testing/databases.js";
import { createMediaBlobs, toMediaBlobsPlace, type MediaBlobsPlace } from "./media-blobs.js";
import { createMediaStore } from "./media-store.js";

const AT = "2026-03-01T10:00:00.000Z";
const LATER = "2026-03-01T11:00:00.000Z";
const png = (n: number) => Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), Buffer.from([n])]);
/** Every byte value, so no encoding on the way can pass unnoticed. */
const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describeDatabases("media blobs", ({ kind, open, target }) => {
  let database: Database;
  let where: DatabaseTarget;
  let now = AT;
  let dir = "";
  let place: MediaBlobsPlace;
  let blobs: Storage;
  beforeEach(async () => {
    where = await target();
    database = await open();
    now = AT;
    // Each test its own folder of files (the default, beside the database file, is tested apart).
    dir = mkdtempSync(join(tmpdir(), "lp-media-"));
    place = toMediaBlobsPlace(kind === "postgres" ? where : kind === "memory" ? { kind: "memory" } : where, database, { clock: { now: () => new Date(now) }, dir: join(dir, "media") });
    blobs = createMediaBlobs(place);
  });
  afterEach(async () => {
    await blobs.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the interface the media store uses: put, get, list by prefix, remove", async () => {
    const media = createMediaStore(blobs, () => "http://lp.test");
    await media.put("products/ab/1.png", png(1));
    await media.put("products/abc/2.png", png(2));
    await media.put("products/abc/3.svg", "<svg/>");
    await media.put("pages/p1/hero.svg", "<svg/>");
    expect(await media.get("products/abc/2.png")).toEqual({ bytes: png(2), mediaType: "image/png" });
    expect(await media.get("products/abc/9.png")).toBeNull();
    expect(await blobs.hasItem("products:ab:1.png")).toBe(true);
    expect(await blobs.hasItem("products:ab:9.png")).toBe(false);
    expect((await blobs.getKeys("products:abc")).sort()).toEqual(["products:abc:2.png", "products:abc:3.svg"]);
    expect((await blobs.getKeys("products:ab")).sort()).toEqual(["products:ab:1.png"]);
    expect((await blobs.getKeys()).sort()).toEqual(["pages:p1:hero.svg", "products:ab:1.png", "products:abc:2.png", "products:abc:3.svg"]);
    await media.removePrefix("products/abc");
    expect((await blobs.getKeys()).sort()).toEqual(["pages:p1:hero.svg", "products:ab:1.png"]);
    await blobs.removeItem("products:ab:1.png");
    expect(await media.get("products/ab/1.png")).toBeNull();
    expect(await media.get("pages/p1/hero.svg")).toEqual({ bytes: Buffer.from("<svg/>"), mediaType: "image/svg+xml" });
  });

  it("answers every byte as written, and a second write replaces the first", async () => {
    await blobs.setItemRaw("products:p:1.png", allBytes);
    expect(Buffer.compare((await blobs.getItemRaw("products:p:1.png")) as Buffer, allBytes)).toBe(0);
    await blobs.setItemRaw("products:p:1.png", new Uint8Array([1, 2, 3]));
    expect(Buffer.from((await blobs.getItemRaw("products:p:1.png")) as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
    await blobs.setItem("pages:p:hero.svg", "<svg>é</svg>");
    expect(await blobs.getItem("pages:p:hero.svg")).toBe("<svg>é</svg>");
    await blobs.clear();
    expect(await blobs.getKeys()).toEqual([]);
    expect(await blobs.getItemRaw("products:p:1.png")).toBeNull();
  });

  it.runIf(kind === "sqlite")("writes files of mode 0600 in folders of mode 0700, whole or not at all, beside the database by default", async () => {
    await blobs.setItemRaw("products:p1:1.png", png(1));
    const file = join(dir, "media", "products", "p1", "1.png");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "media")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "media", "products", "p1")).mode & 0o777).toBe(0o700);
    // A write a killed process left half done is not a key, and is gone at the next open.
    mkdirSync(join(dir, "media", ".partial"), { recursive: true });
    writeFileSync(join(dir, "media", ".partial", "123-1"), "half");
    expect(await blobs.getKeys()).toEqual(["products:p1:1.png"]);
    const again = createMediaBlobs(place);
    expect(existsSync(join(dir, "media", ".partial", "123-1"))).toBe(false);
    expect(Buffer.from((await again.getItemRaw("products:p1:1.png")) as Buffer)).toEqual(png(1));
    await again.dispose();
    // No key reaches outside the folder or into its writes under way.
    for (const key of ["..:x.png", "products:..:..:x.png", ".partial:123-1"]) {
      await expect(blobs.setItemRaw(key, png(1)), key).rejects.toThrow(/Invalid (media )?key/);
      await expect(blobs.getItemRaw(key), key).rejects.toThrow(/Invalid (media )?key/);
    }
    if (where.kind !== "sqlite") throw new Error("an SQLite target was expected");
    const beside = toMediaBlobsPlace(where, database, { clock: { now: () => new Date(now) } });
    expect(beside).toEqual({ kind: "files", dir: join(dirname(where.file), "media") });
    const nextTo = createMediaBlobs(beside);
    await nextTo.setItemRaw("products:p2:2.png", png(2));
    expect(readdirSync(join(dirname(where.file), "media", "products", "p2"))).toEqual(["2.png"]);
    await nextTo.dispose();
  });

  it.runIf(kind === "postgres")("keeps each blob as a row of the media table, with its media type and when it was first stored", async () => {
    await blobs.setItemRaw("products:p1:1.png", png(1));
    now = LATER;
    await blobs.setItemRaw("products:p1:1.png", png(2));
    await blobs.setItemRaw("pages:p1:hero.svg", Buffer.from("<svg/>"));
    const rows = await database.db.selectFrom("media").select(["path", "media_type", "created_at"]).orderBy("path").execute();
    expect(rows).toEqual([
      { path: "pages/p1/hero.svg", media_type: "image/svg+xml", created_at: LATER },
      { path: "products/p1/1.png", media_type: "image/png", created_at: AT },
    ]);
    expect(Buffer.from((await blobs.getItemRaw("products:p1:1.png")) as Buffer)).toEqual(png(2));
  });

  it.runIf(kind === "memory")("keeps a :memory: database's media in memory", () => {
    expect(place).toEqual({ kind: "memory" });
  });
});
