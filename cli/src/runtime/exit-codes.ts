import { CliError, UsageError } from "./errors.js";

/** The exit codes of `lp`, in one place (DESIGN §10). */
export const EXIT = {
  ok: 0,
  /** API or runtime error. */
  error: 1,
  /** Usage: unknown command or flag, missing or malformed value; `lp conformance` that could not start (unreachable, credentials refused). */
  usage: 2,
  /** Authentication: 401, or 403 `insufficient_scope` / `account_mismatch`, or no credentials. */
  auth: 4,
  /** Still pending when `--wait` timed out. */
  pending: 8,
} as const;

const AUTH_CODES = new Set(["unauthenticated", "insufficient_scope", "account_mismatch"]);

/** Fields read off errors by name, so that this module never loads the client or commander. */
interface ErrorLike {
  name?: string;
  code?: string;
  status?: number;
  exitCode?: number;
  missing?: string;
  message?: string;
}

/** The exit code for any thrown value. */
export function toExitCode(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof CliError) return error.exitCode;
  const e = (error ?? {}) as ErrorLike;
  if (isCommanderError(error)) return e.code === "commander.helpDisplayed" || e.code === "commander.version" ? EXIT.ok : EXIT.usage;
  switch (e.name) {
    case "ApiError":
      return e.status === 401 || (e.status === 403 && AUTH_CODES.has(e.code ?? "")) ? EXIT.auth : EXIT.error;
    case "ClientConfigError":
      return e.missing === "accountId" ? EXIT.usage : EXIT.auth;
    case "WaitTimeoutError":
      return EXIT.pending;
    default:
      return EXIT.error;
  }
}

const MISSING: Record<string, string> = {
  token: "No access token: pass --token, set LP_TOKEN, run 'lp config set token ...', or run 'lp serve' in this folder.",
  accountId: "No account: pass --account, set LP_ACCOUNT or run 'lp config set account ...'.",
  appId: "No application id: pass --app-id, set LP_APP_ID or run 'lp config set app_id ...' (lp serve's dev app is used in its folder).",
  appSecret: "No client secret: pass --app-secret, set LP_APP_SECRET or run 'lp config set app_secret ...'.",
  adminKey: "No admin key: pass --admin-key or set LP_ADMIN_KEY (lp serve prints it, and writes it to .lp/credentials.json).",
};

/** commander's own errors (unknown flag, missing argument, help, version), recognised by their code. */
export function isCommanderError(error: unknown): boolean {
  const code = (error as ErrorLike | null)?.code;
  return typeof code === "string" && code.startsWith("commander.");
}

/** The one line printed on stderr for an error: message, code, request id. */
export function describeError(error: unknown): string {
  const e = (error ?? {}) as ErrorLike & { requestId?: string };
  if (e.name === "ClientConfigError" && e.missing) return MISSING[e.missing] ?? e.message ?? String(error);
  if (e.name === "TransportError") return `${e.message}. Is the server running? (lp serve; --api-url, LP_API_URL)`;
  const message = e.message ?? String(error);
  const parts: string[] = [];
  if (e.name === "ApiError" || (error instanceof CliError && e.code)) parts.push(`code: ${e.code}`);
  if (e.requestId) parts.push(`request: ${e.requestId}`);
  return parts.length ? `${message} (${parts.join(", ")})` : message;
}
