import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** What `lp serve` writes to `<data-dir>/credentials.json` for the CLI in the same folder. */
export interface CredentialsFile {
  api_url: string;
  account: string;
  token: string;
  app_id: string;
  app_secret: string;
  admin_key?: string | null;
}

/** Name of the file inside the data dir. */
export const CREDENTIALS_FILE = "credentials.json";

/** Writes the dev credentials, readable by the owner only. */
export async function writeCredentialsFile(dataDir: string, creds: CredentialsFile): Promise<string> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, CREDENTIALS_FILE);
  await writeFile(path, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  await chmod(path, 0o600);
  return path;
}

/** Removes the file written by {@link writeCredentialsFile} (memory storage: the values die with the server). */
export async function removeCredentialsFile(path: string): Promise<void> {
  await rm(path, { force: true });
}

/** Reads `<dir>/credentials.json`, or null when absent or unreadable. */
export async function readCredentialsFile(dataDir: string): Promise<(CredentialsFile & { path: string }) | null> {
  const path = join(dataDir, CREDENTIALS_FILE);
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as CredentialsFile;
    return typeof parsed.api_url === "string" && typeof parsed.token === "string" ? { ...parsed, path } : null;
  } catch {
    return null;
  }
}
