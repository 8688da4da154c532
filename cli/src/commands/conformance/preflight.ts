import { CliError } from "../../runtime/errors.js";
import { EXIT } from "../../runtime/exit-codes.js";
import { NoAnswer, type Exchange } from "./checks.js";
import type { Http } from "./http.js";

/** What the preflight asks about: ids that exist nowhere, so nothing is read or changed. */
export interface PreflightTarget {
  apiUrl: string;
  account: string;
  /** The webhook checks will run: the application's credentials are tried too. */
  developer: boolean;
  productId: string;
  endpointId: string;
}

/**
 * Before anything is created: the instance answers, and takes the token for the account (and the
 * application's id and secret). An unknown product (and endpoint) id is asked for, so the answer is a
 * 404 that reads and changes nothing. Anything else than a refusal is left to the checks. Exit 2 otherwise.
 */
export async function preflight(http: Http, target: PreflightTarget): Promise<void> {
  const ask = async (path: string): Promise<Exchange> => {
    try {
      return await http.send(null, "GET", path);
    } catch (error) {
      const reason = error instanceof NoAnswer ? error.message : (error as Error).message;
      throw new CliError(EXIT.usage, `Could not reach ${target.apiUrl} (${reason}). Nothing was created.`, { code: "unreachable" });
    }
  };
  const codeOf = (ex: Exchange) => {
    const code = (ex.body as { error?: { code?: unknown } } | null | undefined)?.error?.code;
    return typeof code === "string" ? ` ${code}` : "";
  };

  const account = await ask(`/v1/accounts/${encodeURIComponent(target.account)}/products/${target.productId}`);
  if (account.status === 401) {
    throw new CliError(EXIT.usage, `${target.apiUrl} refused the token (401${codeOf(account)}): check --token / LP_TOKEN. Nothing was created.`, { code: "bad_credentials" });
  }
  if (account.status === 403) {
    throw new CliError(EXIT.usage, `The token may not read products of account ${target.account} (403${codeOf(account)}): the run needs a token of that account with every scope. Nothing was created.`, {
      code: "bad_credentials",
    });
  }
  if (!target.developer) return;
  const developer = await ask(`/v1/developer/webhook-endpoints/${target.endpointId}`);
  if (developer.status === 401 || developer.status === 403) {
    throw new CliError(EXIT.usage, `${target.apiUrl} refused the application id and secret (${developer.status}${codeOf(developer)}): check --app-id and --app-secret, or pass --skip-webhooks. Nothing was created.`, {
      code: "bad_credentials",
    });
  }
}
