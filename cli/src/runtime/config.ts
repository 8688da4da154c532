import { join } from "node:path";
import { CONFIG_KEYS, configPath, readConfigFile, type ConfigKey, type Profile } from "./config-file.js";
import { readCredentialsFile } from "./credentials-file.js";
import { UsageError } from "./errors.js";

/** The local server `lp serve` starts by default. */
export const DEFAULT_API_URL = "http://127.0.0.1:4010";

/** Environment variable of each key. */
export const ENV_OF: Record<ConfigKey, string> = {
  api_url: "LP_API_URL",
  token: "LP_TOKEN",
  account: "LP_ACCOUNT",
  app_id: "LP_APP_ID",
  app_secret: "LP_APP_SECRET",
  admin_key: "LP_ADMIN_KEY",
};

/** The global flags that carry config values (commander's camelCase names). */
export interface GlobalFlags {
  apiUrl?: string;
  token?: string;
  account?: string;
  appId?: string;
  appSecret?: string;
  adminKey?: string;
  profile?: string;
}

const FLAG_OF: Record<ConfigKey, keyof GlobalFlags> = {
  api_url: "apiUrl",
  token: "token",
  account: "account",
  app_id: "appId",
  app_secret: "appSecret",
  admin_key: "adminKey",
};

/** Where a value came from, for `lp config list`. */
export type Source = "flag" | "env" | "profile" | "credentials-file" | "default" | "unset";

/** The configuration a command runs with. */
export interface ResolvedConfig {
  profile: string;
  values: Partial<Record<ConfigKey, string>>;
  sources: Record<ConfigKey, Source>;
  configPath: string;
  /** Set when values came from `./.lp/credentials.json`. */
  credentialsPath?: string;
}

const normalize = (url: string) => url.replace(/\/+$/, "");

/**
 * Resolves each key: flag, then environment, then the profile file, then the dev credentials that
 * `lp serve` wrote to `./.lp/credentials.json` (only while the API URL is unset or is that server's),
 * then defaults. A profile named by `--profile` or `LP_PROFILE` must exist unless `allowMissingProfile`.
 */
export async function resolveConfig(
  flags: GlobalFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  options: { allowMissingProfile?: boolean } = {},
): Promise<ResolvedConfig> {
  const path = configPath(env);
  const named = flags.profile ?? env.LP_PROFILE;
  const profileName = named || "default";
  const file = await readConfigFile(path);
  const profile: Profile | undefined = file.profiles[profileName];
  if (named && !profile && !options.allowMissingProfile) {
    throw new UsageError(`Profile '${profileName}' is not in ${path}; create it with 'lp config set KEY VALUE --profile ${profileName}'.`);
  }
  const values: Partial<Record<ConfigKey, string>> = {};
  const sources = {} as Record<ConfigKey, Source>;
  for (const key of CONFIG_KEYS) {
    const fromFlag = flags[FLAG_OF[key]];
    const fromEnv = env[ENV_OF[key]];
    const fromProfile = profile?.[key];
    const [value, source]: [string | undefined, Source] =
      fromFlag ? [fromFlag, "flag"] : fromEnv ? [fromEnv, "env"] : fromProfile ? [fromProfile, "profile"] : [undefined, "unset"];
    values[key] = value;
    sources[key] = source;
  }

  let credentialsPath: string | undefined;
  if (CONFIG_KEYS.some((key) => !values[key])) {
    const creds = await readCredentialsFile(join(cwd, ".lp"));
    if (creds && (!values.api_url || normalize(values.api_url) === normalize(creds.api_url))) {
      const fill = (key: ConfigKey, value: string | null | undefined) => {
        if (!values[key] && value) {
          values[key] = value;
          sources[key] = "credentials-file";
          credentialsPath = creds.path;
        }
      };
      fill("api_url", creds.api_url);
      fill("token", creds.token);
      fill("account", creds.account);
      // An application id is not a secret: a secret given alone is taken to be the dev app's (as a token
      // given alone is the dev account's). The dev secret only goes with the dev app's id.
      fill("app_id", creds.app_id);
      if (values.app_id === creds.app_id) fill("app_secret", creds.app_secret);
      fill("admin_key", creds.admin_key);
    }
  }
  if (!values.api_url) {
    values.api_url = DEFAULT_API_URL;
    sources.api_url = "default";
  }
  return { profile: profileName, values, sources, configPath: path, credentialsPath };
}
