import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/**
 * Claims a data directory for this process. A data dir is one server's: at start it makes the work its last
 * process had claimed due at once (it does not wait for those leases to lapse), and its rate limits and dashboard
 * sessions are counted in the process, so a second server on the directory would take the first one's work; it is
 * refused with the first one's pid. Processes that share state share PostgreSQL. A lock left by a process that
 * died (SIGKILL) is taken over.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, "lp.lock");
  try {
    writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number.parseInt(readFileSync(file, "utf8"), 10);
    if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
      throw new Error(`Another lp server (pid ${holder}) is using ${dir}; stop it or pass another --data-dir.`);
    }
    writeFileSync(file, String(process.pid), { mode: 0o600 });
  }
  return () => rmSync(file, { force: true });
}

/** The pid of another live process holding `dir`'s lock, or null (`lp doctor` checks before it reads). */
export function dataDirHolder(dir: string): number | null {
  let text: string;
  try {
    text = readFileSync(join(dir, "lp.lock"), "utf8");
  } catch {
    return null;
  }
  const holder = Number.parseInt(text, 10);
  return Number.isInteger(holder) && holder !== process.pid && isAlive(holder) ? holder : null;
}
