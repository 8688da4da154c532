import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Storage } from "unstorage";
import { describe, expect, it } from "vitest";
import { createCore, type Core } from "../core.js";
import { openDatabase, type Database, type DatabaseTarget } from "../db/database.js";
import { createManualClock } from "../deps.js";
import type { DomainEvent } from "../events/event-sink.js";
import { createMediaBlobs, toMediaBlobsPlace } from "../media/media-blobs.js";
import { useTempDirs } from "../testing/temp-dirs.js";
import { productListSchema } from "./products-service.js";

const AT = "2026-03-01T10:00:00.000Z";
/** A PNG's signature and header, padded to `size` bytes: sniffed as image/png. */
const png = (size: number) => ({ filename: "p.png", bytes: Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"), Buffer.alloc(size - 29)]) });
const lamp = { title: "Lamp", price: 1, product_type: "physical" as const };

interface Opened {
  core: Core;
  database: Database;
  blobs: Storage;
  clock: ReturnType<typeof createManualClock>;
  close(): Promise<void>;
}

/** A core on `target` with its media blobs (`wrap` may watch them), and accounts `acct_a` and `acct_b` in the database. */
async function open(target: DatabaseTarget, options: { events?: DomainEvent[]; url?: () => string; wrap?: (blobs: Storage, database: Database) => Storage } = {}): Promise<Opened> {
  const database = await openDatabase(target);
  const clock = createManualClock(AT);
  const made = createMediaBlobs(toMediaBlobsPlace(target, database, { clock }));
  const blobs = options.wrap?.(made, database) ?? made;
  const events = options.events;
  const core = await createCore({ database, media: blobs, clock, publicUrl: options.url ?? (() => "http://lp.test"), ...(events ? { events: { emit: async (e) => void events.push(e) } } : {}) });
  for (const account_id of ["acct_a", "acct_b"]) {
    await database.db
      .insertInto("accounts")
      .values({ account_id, environment: "production", currency: "USD", page_quota: 100, product_quota: 100, media_quota_bytes: 10_000, created_at: AT, updated_at: AT })
      .onConflict((c) => c.doNothing())
      .execute();
  }
  return {
    core,
    database,
    blobs,
    clock,
    async close() {
      await core.close();
      await database.close();
      await made.dispose();
    },
  };
}

describe("products service over an SQLite file", () => {
  const temp = useTempDirs();

  it("keeps products, their order, deletions and uploaded bytes across a restart", async () => {
    const dir = temp("products");
    const target: DatabaseTarget = { kind: "sqlite", file: join(dir, "lp.db") };
    const first = await open(target);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push((await first.core.products.create("acct_a", { title: `P${i}`, price: i, product_type: "physical" })).id);
      first.clock.advance(1000);
    }
    const withImage = await first.core.products.create("acct_b", { title: "Other", price: 1, product_type: "service" }, [png(100)]);
    await first.core.products.remove("acct_a", ids[5]!);
    await first.core.products.update("acct_a", ids[7]!, { price: 1000 });
    const before = await first.core.products.list("acct_a", productListSchema.parse({ per_page: "100", sort: "-price" }));
    await first.close();

    // The media folder of the data dir holds the upload as a file.
    const path = withImage.images[0]!.url.replace("http://lp.test/media/", "");
    expect(existsSync(join(dir, "media", ...path.split("/")))).toBe(true);
    const second = await open(target);
    const after = await second.core.products.list("acct_a", productListSchema.parse({ per_page: "100", sort: "-price" }));
    expect(after.data).toEqual(before.data);
    expect(after.data).toHaveLength(29);
    expect(after.data[0]!.id).toBe(ids[7]);
    expect(after.data.map((p) => p.id)).not.toContain(ids[5]);
    expect((await second.core.products.list("acct_b", productListSchema.parse({}))).data.map((p) => p.preview_image_url)).toEqual([withImage.images[0]!.url]);
    expect((await second.core.media.get(path))?.bytes).toEqual(png(100).bytes);
    await second.close();
  });
});

describe.each([
  ["memory", () => ({ kind: "memory" }) as DatabaseTarget],
  ["sqlite", (dir: string) => ({ kind: "sqlite", file: join(dir, "lp.db") }) as DatabaseTarget],
])("products service (%s)", (_kind, targetIn) => {
  const temp = useTempDirs();
  const target = () => targetIn(temp("products"));

  it("emits product events with the product as the API shows it, in the change's transaction", async () => {
    const events: DomainEvent[] = [];
    const { core, close } = await open(target(), { events });
    const p = await core.products.create("acct_a", lamp);
    await core.products.update("acct_a", p.id, { title: "Lamp 2" });
    await core.products.remove("acct_a", p.id);
    expect(events.map((e) => [e.type, e.account_id, (e.data as { title: string }).title])).toEqual([
      ["product.created", "acct_a", "Lamp"],
      ["product.updated", "acct_a", "Lamp 2"],
      ["product.deleted", "acct_a", "Lamp 2"],
    ]);
    expect(events[0]!.data).toEqual(p);
    await expect(core.products.get("acct_a", p.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(core.products.remove("acct_a", p.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await core.products.readAny("acct_a", p.id)).toMatchObject({ deleted_at: expect.any(String) });
    expect(events).toHaveLength(3);
    await close();
  });

  it("answers get's product as JSON, following every write, the public URL and deletion", async () => {
    let url = "http://lp.test";
    const { core, close } = await open(target(), { url: () => url });
    const p = await core.products.create("acct_a", lamp);
    const same = async () => expect(await core.products.getJson("acct_a", p.id)).toBe(JSON.stringify(await core.products.get("acct_a", p.id)));
    await same();
    await core.products.update("acct_a", p.id, { title: "Lamp 2" });
    await same();
    expect(JSON.parse(await core.products.getJson("acct_a", p.id)).title).toBe("Lamp 2");
    url = "http://other.test";
    expect(JSON.parse(await core.products.getJson("acct_a", p.id)).preview_image_url).toMatch(/^http:\/\/other\.test\/media\/placeholders\//);
    await same();
    await core.products.remove("acct_a", p.id);
    await expect(core.products.getJson("acct_a", p.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(core.products.getJson("acct_a", "not-a-uuid")).rejects.toMatchObject({ code: "not_found" });
    await expect(core.products.getJson("acct_b", p.id)).rejects.toMatchObject({ code: "not_found" });
    await close();
  });

  it("stores an upload's bytes before the row that names it", async () => {
    // Each write of bytes is answered with whether an image row already named its path then.
    const named: boolean[] = [];
    const watch = (blobs: Storage, database: Database): Storage => {
      const write = blobs.setItemRaw.bind(blobs);
      blobs.setItemRaw = (async (key: string, value: unknown) => {
        const path = key.split(":").join("/");
        named.push((await database.db.selectFrom("product_images").select("id").where("media_path", "=", path).executeTakeFirst()) !== undefined);
        return write(key, value);
      }) as Storage["setItemRaw"];
      return blobs;
    };
    const { core, close } = await open(target(), { wrap: watch });
    const p = await core.products.create("acct_a", lamp, [png(50), png(60)]);
    const edited = await core.products.update("acct_a", p.id, { remove_image_ids: [p.images[0]!.id] }, [png(70)]);
    expect(named).toEqual([false, false, false]);
    expect(edited.images.map((i) => i.display_order)).toEqual([0, 1]);
    expect(await core.media.paths("products")).toEqual(
      [...p.images, ...edited.images]
        .map((i) => i.url.replace("http://lp.test/media/", ""))
        .filter((path, i, all) => all.indexOf(path) === i)
        .sort(),
    );
    for (const image of edited.images) expect(await core.media.get(image.url.replace("http://lp.test/media/", ""))).not.toBeNull();
    await close();
  });

  it("removes the bytes of uploads whose transaction does not commit, and writes no row", async () => {
    const { core, database, close } = await open(target());
    const refused = new Error("the change mark was taken over");
    const mark = async () => {
      throw refused;
    };
    await expect(core.products.create("acct_a", lamp, [png(50)], mark)).rejects.toBe(refused);
    expect(await core.media.paths()).toEqual([]);
    expect(await database.db.selectFrom("products").select("id").execute()).toEqual([]);

    const p = await core.products.create("acct_a", lamp, [png(50)]);
    await expect(core.products.update("acct_a", p.id, { title: "Never" }, [png(60)], mark)).rejects.toBe(refused);
    expect(await core.media.paths()).toEqual([p.images[0]!.url.replace("http://lp.test/media/", "")]);
    expect(await core.products.get("acct_a", p.id)).toEqual(p);
    await close();
  });

  it("refuses uploads over the media quota before storing a byte, counting what removed images free", async () => {
    let writes = 0;
    const count = (blobs: Storage): Storage => {
      const write = blobs.setItemRaw.bind(blobs);
      blobs.setItemRaw = ((key: string, value: unknown) => (writes++, write(key, value))) as Storage["setItemRaw"];
      return blobs;
    };
    const { core, database, close } = await open(target(), { wrap: count });
    await database.db.updateTable("accounts").set({ media_quota_bytes: 1000 }).where("account_id", "=", "acct_a").execute();
    const p = await core.products.create("acct_a", lamp, [png(600)]);
    await expect(core.products.create("acct_a", lamp, [png(600)])).rejects.toMatchObject({ code: "quota_exceeded", details: { quota: "media_bytes", used: 600, requested: 600 } });
    await expect(core.products.update("acct_a", p.id, {}, [png(401)])).rejects.toMatchObject({ code: "quota_exceeded", details: { quota: "media_bytes", used: 600 } });
    expect(writes).toBe(1);
    expect(await core.media.paths()).toHaveLength(1);
    const replaced = await core.products.update("acct_a", p.id, { remove_image_ids: [p.images[0]!.id] }, [png(900)]);
    expect(replaced.images).toHaveLength(1);
    expect((await database.db.selectFrom("products").select("media_bytes").where("id", "=", p.id).executeTakeFirstOrThrow()).media_bytes).toBe(900);
    await close();
  });

  it("saves checkout fields on a product, deleted or not, and nothing for an unknown one", async () => {
    const { core, close } = await open(target());
    const p = await core.products.create("acct_a", lamp);
    const fields = [{ field_key: "name", label: "Name", field_type: "text" as const, is_required: true, options: [] }];
    await core.products.setCheckoutFields("acct_a", p.id, fields);
    await core.products.remove("acct_a", p.id);
    await core.products.setCheckoutFields("acct_a", "00000000-0000-4000-8000-000000000000", fields);
    expect((await core.products.readAny("acct_a", p.id))?.checkout_fields).toEqual(fields);
    expect(await core.products.readAny("acct_b", p.id)).toBeNull();
    await close();
  });
});
