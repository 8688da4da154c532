import { z } from "zod";
import { ACCOUNT_ID } from "../ids.js";

/** The scopes an access token can carry. */
export const SCOPES = ["pages:read", "pages:write", "pages:deploy", "products:read", "products:write"] as const;
export type Scope = (typeof SCOPES)[number];

export const environmentSchema = z.enum(["production", "test"]);
export type Environment = z.infer<typeof environmentSchema>;

/** Products an account may have (soft-deleted ones do not count) unless its record says otherwise. */
export const DEFAULT_PRODUCT_QUOTA = 10_000;
/** Bytes of uploaded product images an account may keep (those of soft-deleted products do not count). */
export const DEFAULT_MEDIA_QUOTA_BYTES = 500 * 1024 * 1024;

/** `POST /_admin/accounts`. */
export const createAccountSchema = z.strictObject({
  account_id: z.string().regex(ACCOUNT_ID, "must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$").optional(),
  environment: environmentSchema.default("production"),
  currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as USD").default("USD"),
  page_quota: z.number().int().min(0).max(1_000_000).default(100),
  product_quota: z.number().int().min(0).max(10_000_000).default(DEFAULT_PRODUCT_QUOTA),
  media_quota_bytes: z.number().int().min(0).max(2 ** 40).default(DEFAULT_MEDIA_QUOTA_BYTES).describe("bytes of uploaded product images, at most 1 TiB"),
});

/** `POST /_admin/tokens`. `expires_in` is in seconds. */
export const createTokenSchema = z.strictObject({
  account_id: z.string().regex(ACCOUNT_ID, "must be an account id"),
  scopes: z.array(z.enum(SCOPES)).min(1).default([...SCOPES]),
  expires_in: z.number().int().min(1).max(10 * 365 * 86_400).optional(),
});

/** `POST /_admin/apps`. */
export const createAppSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  account_ids: z.array(z.string().regex(ACCOUNT_ID, "must be an account id")).default([]),
});

export type CreateAccountInput = z.output<typeof createAccountSchema>;
export type CreateTokenInput = z.output<typeof createTokenSchema>;
export type CreateAppInput = z.output<typeof createAppSchema>;

export interface AccountRecord {
  account_id: string;
  environment: Environment;
  currency: string;
  page_quota: number;
  product_quota: number;
  media_quota_bytes: number;
  created_at: string;
}

/**
 * An account record as read: records written before the product and media quotas existed get the
 * defaults, so every reader sees all three quotas.
 */
export function withQuotaDefaults(record: Omit<AccountRecord, "product_quota" | "media_quota_bytes"> & Partial<AccountRecord>): AccountRecord {
  return { ...record, product_quota: record.product_quota ?? DEFAULT_PRODUCT_QUOTA, media_quota_bytes: record.media_quota_bytes ?? DEFAULT_MEDIA_QUOTA_BYTES };
}

export interface TokenRecord {
  account_id: string;
  scopes: Scope[];
  expires_at: string | null;
  created_at: string;
}

export interface AppRecord {
  application_id: string;
  name: string;
  account_ids: string[];
  secret_hash: string;
  created_at: string;
}

/** Who is calling on the account plane. */
export interface AccountPrincipal {
  kind: "account";
  account_id: string;
  scopes: Scope[];
}

/** Who is calling on the developer plane. */
export interface AppPrincipal {
  kind: "app";
  application_id: string;
  account_ids: string[];
}
