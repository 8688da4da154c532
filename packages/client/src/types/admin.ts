import type { createAccountSchema, createAppSchema, createTokenSchema, ExportDocument } from "@lp/core";
import type { z } from "zod";

/** Body of `admin.createAccount`. */
export type AccountCreateInput = z.input<typeof createAccountSchema>;
/** Body of `admin.createToken`; `expires_in` is in seconds. */
export type TokenCreateInput = z.input<typeof createTokenSchema>;
/** Body of `admin.createApp`. */
export type AppCreateInput = z.input<typeof createAppSchema>;

/** Answers of the admin API (from @lp/contract): an account, a token and an application (secrets shown once), an import's counts. */
export type { Account, CreatedToken, CreatedApp, ImportResult, ClockState } from "@lp/contract";

/** The document of `admin.export` / `admin.import`. */
export type { ExportDocument };
