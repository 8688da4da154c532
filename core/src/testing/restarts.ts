import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { openDatabase } from "../db/database.js";
import { createMediaBlobs, toMediaBlobsPlace } from "../media/media-blobs.js";
import type { EventSink } from "../events/event-sink.js";

/** Cores opened on data dirs as `lp serve` would after a restart, closed and removed after each test. */
export interface Restarts {
  /** A new empty data folder. */
  folder(prefix: string): string;
  /** A core on `dir` (recovery runs as it opens), with the dev credentials, on a frozen clock. */
  open(dir: string, events?: EventSink): Promise<Core>;
  /**
   * Closes a core opened here, as a clean stop would. Its stores stay open, so a test can write through them the
   * state a kill leaves (each write is in the database once it resolves); they close when the next core opens on
   * the folder, or after the test.
   */
  shut(core: Core): Promise<void>;
}

/**
 * For tests that write by hand the state a kill can leave between two writes, then open a core on it as
 * after a restart. Call inside `describe`: every core and folder is cleaned up after each test.
 */
export function useRestarts(): Restarts {
  const dirs: string[] = [];
  const cores: Core[] = [];
  // What the cores shut here leave open, by folder (stores, database, media): tests write through them, by
  // hand, the state a kill leaves.
  const shutStores = new Map<string, (() => Promise<void>)[]>();
  const folderOf = new Map<Core, string>();
  const releaseOf = new Map<Core, () => Promise<void>>();
  // After the test: every core and every store closed before its folder is removed.
  const stop = async (core: Core) => {
    await core.close();
    await releaseOf.get(core)?.();
  };
  afterEach(async () => {
    for (const core of cores.splice(0)) await stop(core);
    for (const release of [...shutStores.values()].flat()) await release();
    shutStores.clear();
    folderOf.clear();
    releaseOf.clear();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    folder(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async open(dir, events) {
      // A shut core's stores close before the next core opens its folder: one connection to a database at a time,
      // as after a restart.
      for (const release of shutStores.get(dir)?.splice(0) ?? []) await release();
      const clock = createManualClock("2026-05-01T00:00:00.000Z");
      // The relational store and its media, in the folder as `lp serve` keeps them.
      const target = { kind: "sqlite", file: join(dir, "lp.db") } as const;
      const database = await openDatabase(target);
      const media = createMediaBlobs(toMediaBlobsPlace(target, database, { clock }));
      const core = await createCore({ database, media, clock, events, publicUrl: () => "http://lp.test", sleep: async () => {} });
      releaseOf.set(core, async () => {
        await media.dispose();
        await database.close();
      });
      await ensureDevCredentials(database, clock, core.ids);
      cores.push(core);
      folderOf.set(core, dir);
      return core;
    },
    async shut(core) {
      await core.close();
      cores.splice(cores.indexOf(core), 1);
      const dir = folderOf.get(core)!;
      shutStores.set(dir, [...(shutStores.get(dir) ?? []), releaseOf.get(core)!]);
    },
  };
}
