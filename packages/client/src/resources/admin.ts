import type { RequestOptions, Transport } from "../transport.js";
import type { Account, AccountCreateInput, AppCreateInput, ClockState, CreatedApp, CreatedToken, ExportDocument, ImportDocument, ImportResult, JournalEntry, JournalQuery, ReplayInput, ReplayResult, TokenCreateInput } from "../types/admin.js";

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
    /** The server's clock: the time now and its mode (`system`, or `manual` with `lp serve --clock manual`). */
    clock: async (options?: Options) => (await call<{ data: ClockState }>("GET", "/_admin/clock", undefined, options)).data,
    /**
     * Moves a manual clock forward by a duration (`"5m"`, `"2h"`, `"7d"`) and runs what fell due (retries,
     * the steps of jobs) before it resolves.
     */
    advanceClock: async (duration: string, options?: Options) => (await call<{ data: ClockState }>("POST", "/_admin/clock", { advance: duration }, options)).data,
    /** Moves a manual clock forward to `to` (never back), likewise. */
    setClock: async (to: string | Date, options?: Options) =>
      (await call<{ data: ClockState }>("POST", "/_admin/clock", { to: to instanceof Date ? to.toISOString() : to }, options)).data,
    /**
     * The request journal: the API requests the server answered, newest first, credentials redacted (`method`,
     * `path` glob, `status` or class such as `4xx`, `since` a time or a duration such as `10m`, `after` a seq, `limit`).
     */
    requests: async (query: JournalQuery = {}, options: Options = {}) =>
      (await t.send<{ data: JournalEntry[] }>("GET", "/_admin/requests", "admin", { ...options, query: { ...query } })).data.data,
    /**
     * Schedules a new delivery to endpoint `endpointId` (any application's) of each kept event of a window
     * that it would have been sent: for an endpoint created late, or a receiver that was down.
     */
    replay: async (endpointId: string, input: ReplayInput = {}, options?: Options) =>
      (await call<{ data: ReplayResult }>("POST", `/_admin/webhook-endpoints/${encodeURIComponent(endpointId)}/replay`, input, options)).data,
    /** Replaces all data with an export document. */
    import: async (doc: ImportDocument, options?: Options) => (await call<{ data: ImportResult }>("POST", "/_admin/import", doc, options)).data,
  };
}

/** The `admin` namespace. */
export type AdminApi = ReturnType<typeof createAdminApi>;
