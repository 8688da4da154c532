import type { RequestOptions, Transport } from "../transport.js";
import type { Account, AccountCreateInput, AppCreateInput, CreatedApp, CreatedToken, ExportDocument, ImportResult, TokenCreateInput } from "../types/admin.js";

type Options = Pick<RequestOptions, "signal">;

/** `admin`: the local admin API of `lp serve` (`Authorization: Bearer <adminKey>`). */
export function createAdminApi(t: Transport) {
  const call = async <T>(method: string, path: string, body?: unknown, options: Options = {}) =>
    (await t.send<T>(method, path, "admin", { ...options, body })).data;
  return {
    /** Creates an account (every field optional). */
    createAccount: async (input: AccountCreateInput = {}, options?: Options) => (await call<{ data: Account }>("POST", "/_admin/accounts", input, options)).data,
    /** Creates an access token for an account; the token is shown once. */
    createToken: async (input: TokenCreateInput, options?: Options) => (await call<{ data: CreatedToken }>("POST", "/_admin/tokens", input, options)).data,
    /** Creates a partner application installed on `account_ids`; the secret is shown once. */
    createApp: async (input: AppCreateInput, options?: Options) => (await call<{ data: CreatedApp }>("POST", "/_admin/apps", input, options)).data,
    /** Deletes everything but the dev credentials. */
    reset: async (options?: Options) => (await call<{ data: { reset: boolean } }>("POST", "/_admin/reset", {}, options)).data,
    /** Every record and media file as one JSON document. */
    export: (options?: Options) => call<ExportDocument>("GET", "/_admin/export", undefined, options),
    /** Replaces all data with an export document. */
    import: async (doc: ExportDocument, options?: Options) => (await call<{ data: ImportResult }>("POST", "/_admin/import", doc, options)).data,
  };
}

/** The `admin` namespace. */
export type AdminApi = ReturnType<typeof createAdminApi>;
