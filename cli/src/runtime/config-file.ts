import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { UsageError } from "./errors.js";

/** Keys a profile can hold, as written in the file and given to `lp config set`. */
export const CONFIG_KEYS = ["api_url", "token", "account", "app_id", "app_secret", "admin_key"] as const;
/** A key of a profile. */
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Values that are secrets: masked by `lp config list`. */
export const SECRET_KEYS: ReadonlySet<ConfigKey> = new Set(["token", "app_secret", "admin_key"]);

/** One profile: some of the keys. */
export type Profile = Partial<Record<ConfigKey, string>>;

/** The profile file: `{ "profiles": { "default": { ... }, "staging": { ... } } }`. */
export interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** `$XDG_CONFIG_HOME/lp/config.json`, `~/.config/lp/config.json` by default. */
export function configPath(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "lp", "config.json");
}

/** Reads the profile file; a missing file is an empty one, a broken one a usage error naming it. */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>;
    return { profiles: typeof parsed.profiles === "object" && parsed.profiles ? parsed.profiles : {} };
  } catch {
    throw new UsageError(`${path} is not valid JSON; fix or delete it.`);
  }
}

/** Writes the profile file with mode 0600 (its folder 0700), through a temporary file and a rename. */
export async function writeConfigFile(path: string, file: ConfigFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/** True when `key` is a config key; otherwise a usage error listing them. */
export function assertConfigKey(key: string): asserts key is ConfigKey {
  if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
    throw new UsageError(`Unknown config key '${key}'; use one of ${CONFIG_KEYS.join(", ")}.`);
  }
}
