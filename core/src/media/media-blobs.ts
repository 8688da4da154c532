import { mkdirSync, rmSync } from "node:fs";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createStorage, type Driver, type Storage } from "unstorage";
import fsDriver from "unstorage/drivers/fs";
import memoryDriver from "unstorage/drivers/memory";
import type { Database, DatabaseTarget, Queries } from "../db/database.js";
import { toTimestamp, type Clock } from "../deps.js";
import { mediaTypeFromKey } from "./sniff.js";

/** Where media bytes are kept: files in a folder, this process's memory, or the database's `media` table. */
export type MediaBlobsPlace = { kind: "files"; dir: string } | { kind: "memory" } | { kind: "database"; db: Queries; clock: Clock };

/**
 * The media place that goes with a database: files in `media/` beside an SQLite file (or in `dir`), memory
 * beside `:memory:`, the `media` table of a PostgreSQL database.
 */
export function toMediaBlobsPlace(target: DatabaseTarget, database: Pick<Database, "db">, options: { clock: Clock; dir?: string }): MediaBlobsPlace {
  if (target.kind === "postgres") return { kind: "database", db: database.db, clock: options.clock };
  if (target.kind === "memory") return { kind: "memory" };
  return { kind: "files", dir: options.dir ?? join(dirname(target.file), "media") };
}

/**
 * Media bytes as an unstorage `Storage` (what `createMediaStore` takes): keys are media paths with `:` for
 * `/` (`products:{productId}:{imageId}.png`), values bytes (`getItemRaw`/`setItemRaw`).
 */
export function createMediaBlobs(place: MediaBlobsPlace): Storage {
  if (place.kind === "memory") return createStorage({ driver: memoryDriver() });
  if (place.kind === "files") return createStorage({ driver: filesDriver(place.dir) });
  return createStorage({ driver: databaseDriver(place.db, place.clock) });
}

/** Where a write is made before it is renamed into place: a folder no key can name (keys never start with a dot). */
const PARTIAL = ".partial";
const DOT_SEGMENT = /(?:^|:)\./;

/**
 * unstorage's fs driver under `dir` for reads and removals, with the writes and listings of lp's own. The fs
 * driver writes a file in place with the process's default mode (0644 under the usual umask): a reader can see
 * half an image, a crash can leave one, and every other user of the machine can read uploads. Here a write goes
 * to a file of mode 0600 in `.partial/`, is flushed to disk, then renamed over its path (folders 0700), so a
 * path holds the old bytes or the new. The fs driver's listing reads the whole folder for any prefix; here
 * only the prefix's folder is read. Writes left in `.partial/` by a killed process are removed on open.
 */
function filesDriver(dir: string): Driver {
  const files = fsDriver({ base: dir });
  const partial = join(dir, PARTIAL);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  rmSync(partial, { recursive: true, force: true });
  let written = 0;
  // Keys reach the driver normalised (colon-separated, no empty segment); a dot segment would leave `dir`
  // or reach `.partial/`, so it is refused on every path in.
  const checked = (key: string) => {
    if (DOT_SEGMENT.test(key)) throw new Error(`Invalid media key: ${JSON.stringify(key.slice(0, 300))}`);
    return key;
  };
  const pathOf = (key: string) => join(dir, ...checked(key).split(":"));

  async function write(key: string, bytes: Uint8Array) {
    const path = pathOf(key);
    await mkdir(partial, { recursive: true, mode: 0o700 });
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temp = join(partial, `${process.pid}-${++written}`);
    const handle = await open(temp, "w", 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await syncFolder(dirname(path));
  }

  async function keysUnder(folder: string, prefix: string): Promise<string[]> {
    const entries = await readdir(folder, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return [];
      throw error;
    });
    const keys = await Promise.all(
      entries
        .filter((entry) => !entry.name.startsWith("."))
        .map((entry) => (entry.isDirectory() ? keysUnder(join(folder, entry.name), `${prefix}${entry.name}:`) : Promise.resolve([`${prefix}${entry.name}`]))),
    );
    return keys.flat();
  }

  const keysFrom = (base: string | undefined) => (base ? keysUnder(pathOf(base.replace(/:$/, "")), base) : keysUnder(dir, ""));

  return {
    name: "lp-media-files",
    options: { base: dir },
    // No depth option: unstorage filters the listing by depth itself.
    flags: {},
    hasItem: (key, opts) => files.hasItem(checked(key), opts),
    getItem: (key, opts) => files.getItem(checked(key), opts),
    getItemRaw: (key, opts) => files.getItemRaw!(checked(key), opts),
    getMeta: (key, opts) => files.getMeta!(checked(key), opts),
    setItem: (key, value) => write(key, Buffer.from(value, "utf8")),
    setItemRaw: (key, value) => write(key, toBytes(value)),
    removeItem: (key, opts) => files.removeItem!(checked(key), opts),
    // unstorage passes a normalised base ending in `:` (or none): a folder.
    getKeys: (base) => keysFrom(base),
    async clear(base) {
      const keys = await keysFrom(base);
      await Promise.all(keys.map((key) => files.removeItem!(key, {})));
    },
  };
}

/** Flushes a folder's entries (a rename in it) to disk; Windows cannot open a folder for that, and need not. */
async function syncFolder(folder: string) {
  if (process.platform === "win32") return;
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function toBytes(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (typeof value === "string") return Buffer.from(value, "utf8");
  throw new TypeError("media bytes must be a Buffer, a Uint8Array, an ArrayBuffer or text");
}

/** The media path of a key: the key's segments joined by `/`. */
const toPath = (key: string) => key.split(":").join("/");

/**
 * The paths from `base` (a normalised unstorage base, `products:p1:`) as a range of the primary key: every
 * path that starts with the prefix is at least the prefix and below it with its last character raised
 * (the column compares bytes, collation "C").
 */
function pathRange(base: string): { from: string; below: string } | null {
  if (!base) return null;
  const from = toPath(base);
  return { from, below: from.slice(0, -1) + String.fromCharCode(from.charCodeAt(from.length - 1) + 1) };
}

/**
 * A driver over the `media` table (PostgreSQL): one row per path, its bytes, its media type (from the
 * extension, as served) and when it was first stored. A write is one upsert, atomic as every statement.
 */
function databaseDriver(db: Queries, clock: Clock): Driver {
  const bytesOf = async (key: string) => (await db.selectFrom("media").select("bytes").where("path", "=", toPath(key)).executeTakeFirst())?.bytes ?? null;
  const keysFrom = (base: string) => {
    const range = pathRange(base);
    let query = db.selectFrom("media").select("path").orderBy("path");
    if (range) query = query.where("path", ">=", range.from).where("path", "<", range.below);
    return query;
  };
  const put = async (key: string, bytes: Buffer) => {
    const path = toPath(key);
    await db
      .insertInto("media")
      .values({ path, bytes, media_type: mediaTypeFromKey(path), created_at: toTimestamp(clock.now()) })
      .onConflict((c) => c.column("path").doUpdateSet((eb) => ({ bytes: eb.ref("excluded.bytes"), media_type: eb.ref("excluded.media_type") })))
      .execute();
  };
  return {
    name: "lp-media-database",
    async hasItem(key) {
      return (await db.selectFrom("media").select("path").where("path", "=", toPath(key)).executeTakeFirst()) !== undefined;
    },
    async getItem(key) {
      const bytes = await bytesOf(key);
      return bytes === null ? null : Buffer.from(bytes).toString("utf8");
    },
    async getItemRaw(key) {
      const bytes = await bytesOf(key);
      return bytes === null ? null : Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
    },
    setItem: (key, value) => put(key, Buffer.from(value, "utf8")),
    setItemRaw: (key, value) => put(key, toBytes(value)),
    async removeItem(key) {
      await db.deleteFrom("media").where("path", "=", toPath(key)).execute();
    },
    async getKeys(base) {
      return (await keysFrom(base).execute()).map((row) => row.path.split("/").join(":"));
    },
    async clear(base) {
      const range = pathRange(base);
      let query = db.deleteFrom("media");
      if (range) query = query.where("path", ">=", range.from).where("path", "<", range.below);
      await query.execute();
    },
  };
}
