import { join } from "node:path";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StorageFaultError, createStorageHealth } from "../storage/storage-faults.js";
import { fillDisk, mountSmallDisk, whySmallDiskUnavailable, type SmallDisk } from "../testing/small-disk.js";
import { guardMediaBlobs } from "./guarded-media-blobs.js";
import { createMediaBlobs } from "./media-blobs.js";
import { createMediaStore } from "./media-store.js";

const noDisk = whySmallDiskUnavailable();
if (noDisk) console.warn(`[lp] skipping the media blobs on a full disk: ${noDisk}`);

describe.skipIf(noDisk !== null)("media blobs on a real full disk (tmpfs)", () => {
  let small: SmallDisk;
  beforeAll(() => {
    small = mountSmallDisk("1m", "0700");
  });
  afterAll(() => small?.unmount());

  it("refuse a write as disk_full, counted once by the health; reads go on, and a drawing is served unstored", async () => {
    const lines: string[] = [];
    const health = createStorageHealth({ where: small.dir, log: (line) => lines.push(line), every: () => () => {} });
    const blobs = guardMediaBlobs(createMediaBlobs({ kind: "files", dir: join(small.dir, "media") }), health);
    const drawn = Buffer.from("<svg/>");
    const media = createMediaStore(blobs, () => "http://lp.test", async (path) => (path.startsWith("drawn/") ? drawn : null));
    await media.put("products/p1/kept.png", Buffer.from("kept"));
    const filler = join(small.dir, "filler");
    fillDisk(filler);
    try {
      const refused = await media.put("products/p1/new.png", Buffer.alloc(64 * 1024, 1)).then(() => null, (error: unknown) => error);
      expect(refused).toBeInstanceOf(StorageFaultError);
      expect(refused).toMatchObject({ reason: "disk_full", sysCode: "ENOSPC", code: "insufficient_storage" });
      expect(health.state()).toMatchObject({ reason: "disk_full", refused: 1 });
      expect(lines).toEqual([`storage: disk full at ${small.dir} (ENOSPC); writes refused until there is room`]);
      expect((await media.get("products/p1/kept.png"))?.bytes.toString()).toBe("kept");
      // Drawn on request: served though its bytes cannot be kept.
      expect((await media.get("drawn/a/b.svg"))?.bytes).toEqual(drawn);
      expect(await media.paths("drawn")).toEqual([]);
      expect(health.state()).toMatchObject({ refused: 2 });
    } finally {
      rmSync(filler);
    }
    await media.put("products/p1/new.png", Buffer.from("new"));
    expect(await media.paths("products")).toEqual(["products/p1/kept.png", "products/p1/new.png"]);
  });
});
