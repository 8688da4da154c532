import { randomBytes } from "node:crypto";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { resolve } from "node:path";

/** Where `--write-env` and `--pid-file` point, resolved against the working directory. */
export interface RunFileOptions {
  envFile?: string;
  pidFile?: string;
}

/** Writes `text` to a temporary file beside `path`, then renames it: a reader sees nothing or all of it. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(temp, text, { mode: 0o600 });
  await rename(temp, path);
}

/** Removes `path` if it still holds `text`: a file another server has since written is left alone. */
async function removeIfOurs(path: string, text: string): Promise<void> {
  const current = await readFile(path, "utf8").catch(() => null);
  if (current === text) await rm(path, { force: true });
}

/**
 * The files a backgrounded `lp serve` leaves for the shell that started it. Both appear only once the
 * server is ready, so `until [ -s .lp.env ]` is a readiness check (a shell redirect, `> .lp.env`, creates
 * the file at once, before anything is in it). The pid file holds this process's id, so `kill` reaches
 * the server itself whatever wrapper started it. Both are removed on a clean stop.
 */
export function createRunFiles(options: RunFileOptions, cwd: string, pid: number) {
  const written: Array<[path: string, text: string]> = [];
  return {
    /** Writes the env lines and the pid, each atomically. */
    async ready(envLines: string): Promise<void> {
      const planned: Array<[string | undefined, string]> = [
        [options.pidFile, `${pid}\n`],
        [options.envFile, envLines],
      ];
      for (const [file, text] of planned) {
        if (!file) continue;
        const path = resolve(cwd, file);
        await writeAtomically(path, text);
        written.push([path, text]);
      }
    },
    /** Removes what {@link ready} wrote, if it is still ours. */
    async remove(): Promise<void> {
      for (const [path, text] of written) await removeIfOurs(path, text);
    },
  };
}
