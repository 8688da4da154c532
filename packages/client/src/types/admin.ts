import type { createAccountSchema, createAppSchema, createTokenSchema, Format3Export, ImportDocument, replayInputSchema } from "@lp/core";
import type { z } from "zod";

/** Body of `admin.createAccount`. */
export type AccountCreateInput = z.input<typeof createAccountSchema>;
/** Body of `admin.createToken`; `expires_in` is in seconds. */
export type TokenCreateInput = z.input<typeof createTokenSchema>;
/** Body of `admin.createApp`. */
export type AppCreateInput = z.input<typeof createAppSchema>;

/** Answers of the admin API (from @lp/contract): an account, a token and an application (secrets shown once), an import's counts. */
export type { Account, CreatedToken, CreatedApp, ImportResult, ClockState, JournalEntry, ReplayResult } from "@lp/contract";

/** Body of `admin.replay`: the window (a time, or a duration before now such as `"10m"`) and the types. */
export type ReplayInput = z.input<typeof replayInputSchema>;

/** The query of `admin.requests`; every field narrows. */
export interface JournalQuery {
  method?: string;
  /** A glob over the path without its query; `*` is any run of characters. */
  path?: string;
  /** An exact status (`"201"`) or a class (`"4xx"`). */
  status?: string;
  /** An ISO 8601 time, or a duration before the server's now (`"10m"`). */
  since?: string;
  /** Only entries with a greater `seq`. */
  after?: number;
  /** Most entries, 1 to 500; default 100. */
  limit?: number;
}

/** The document of `admin.export`: every table's rows (the settings left out) and every media file, version 3. */
export type ExportDocument = Format3Export;

/** What `admin.import` takes: a document of `admin.export` (version 3), or an export of format 2 (version 1). */
export type { ImportDocument };
