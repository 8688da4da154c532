import type { createAccountSchema, createAppSchema, createTokenSchema, ExportDocument } from "@lp/core";
import type { z } from "zod";
import type { Timestamp } from "./common.js";

/** Body of `admin.createAccount`. */
export type AccountCreateInput = z.input<typeof createAccountSchema>;
/** Body of `admin.createToken`; `expires_in` is in seconds. */
export type TokenCreateInput = z.input<typeof createTokenSchema>;
/** Body of `admin.createApp`. */
export type AppCreateInput = z.input<typeof createAppSchema>;

/** An account made through the admin API. */
export interface Account {
  account_id: string;
  environment: "production" | "test";
  currency: string;
  page_quota: number;
  created_at: Timestamp;
}

/** A new access token, shown once. */
export interface CreatedToken {
  token: string;
  account_id: string;
  scopes: string[];
  expires_at: Timestamp | null;
}

/** A new partner application; `client_secret` is shown once. */
export interface CreatedApp {
  application_id: string;
  client_secret: string;
  name: string;
  account_ids: string[];
}

/** The document of `admin.export` / `admin.import`. */
export type { ExportDocument };

/** What `admin.import` answers: how many records and media files were loaded. */
export interface ImportResult {
  records: number;
  media: number;
}
