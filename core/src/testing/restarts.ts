import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { createCore, type Core } from "../core.js";
import { createManualClock } from "../deps.js";
import { ensureDevCredentials } from "../accounts/dev-credentials.js";
import { createStores } from "../storage/create-storage.js";
import type { EventSink } from "../events/event-sink.js";

/** Cores opened on data dirs as `lp serve` would after a restart, closed and removed after each test. */
export interface Restarts {
  /** A new empty data folder. */
  folder(prefix: string): string;
  /** A core on `dir` (recovery runs as it opens), with the dev credentials, on a frozen clock. */
  open(dir: string, events?: EventSink): Promise<Core>;
  /** Closes a core opened here, as a clean stop would. */
  shut(core: Core): Promise<void>;
}

/**
 * For tests that write by hand the state a kill can leave between two writes, then open a core on it as
 * after a restart. Call inside `describe`: every core and folder is cleaned up after each test.
 */
export function useRestarts(): Restarts {
  const dirs: string[] = [];
  const cores: Core[] = [];
  afterEach(async () => {
    for (const core of cores.splice(0)) await core.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    folder(prefix) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async open(dir, events) {
      const clock = createManualClock("2026-05-01T00:00:00.000Z");
      const core = await createCore({ stores: createStores("sqlite", dir), clock, events, publicUrl: () => "http://lp.test", sleep: async () => {} });
      await ensureDevCredentials(core.stores.data, clock, core.ids);
      cores.push(core);
      return core;
    },
    async shut(core) {
      await core.close();
      cores.splice(cores.indexOf(core), 1);
    },
  };
}
