import { chmod, lstat, mkdir, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { DIR_MODE, FILE_MODE } from "../storage/fs-io.js";
import { writeFileAtomic } from "../storage/fs-io.js";
import { INDEX_DIR } from "../storage/fs-index-snapshots.js";
import type { DoctorProblem, DoctorSource, SourceRecord } from "./doctor.js";

/** Largest record file read whole; a bigger one is a problem in itself (records are small). */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

async function* walk(dir: string): AsyncGenerator<{ path: string; dir: boolean }> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      yield { path, dir: true };
      yield* walk(path);
    } else if (entry.isFile()) yield { path, dir: false };
  }
}

/**
 * A data dir as `lp doctor` reads it: `data/` holds a file per record (key `a:b:c` at `data/a/b/c`), `media/`
 * the uploads, `format.json` the format. Unreadable records move to `quarantine/data/...` at the root, out
 * of every listing. The list indexes of an fs store live in memory only (built from the records at start),
 * so there are none on disk to check.
 */
export function fsDoctorSource(dataDir: string): DoctorSource {
  const data = join(dataDir, "data");
  const keyOf = (path: string) => relative(data, path).split(sep).join(":");
  return {
    where: dataDir,
    async records() {
      const out: SourceRecord[] = [];
      for await (const entry of walk(data)) {
        // `.tmp` and `.wal` are the driver's temporary files and write-ahead log, never records.
        if (entry.dir || [".tmp", ".wal"].includes(relative(data, entry.path).split(sep)[0])) continue;
        const size = (await stat(entry.path)).size;
        const text = size > MAX_RECORD_BYTES ? "" : await readFile(entry.path, "utf8");
        out.push({ key: keyOf(entry.path), text, where: entry.path });
      }
      return out;
    },
    async hasMedia(path) {
      // Media paths are checked against their pattern before they are stored; a stored one is still refused if it climbs out.
      if (path.split("/").some((part) => part === ".." || part === "")) return false;
      return stat(join(dataDir, "media", ...path.split("/"))).then((s) => s.isFile(), () => false);
    },
    async format() {
      const where = join(dataDir, "format.json");
      return { key: "format.json", where, text: await readFile(where, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? null : Promise.reject(error))) };
    },
    async writeFormat(text) {
      const file = join(dataDir, "format.json");
      await writeFileAtomic(file, `${file}.${process.pid}.tmp`, text, true);
    },
    indexProblems: async () => [],
    async rebuildIndexes() {
      // The list indexes are built in memory; what persists of them is a snapshot per collection, which
      // the next start rebuilds from the records once it is gone.
      const dir = join(dataDir, INDEX_DIR);
      if (!(await stat(dir).then(() => true, () => false))) return [];
      await rm(dir, { recursive: true, force: true });
      return [`removed the persisted list indexes in ${dir} (rebuilt from the records at the next start)`];
    },
    async modeProblems() {
      const problems: DoctorProblem[] = [];
      const check = async (path: string, isDir: boolean) => {
        const info = await lstat(path).catch(() => null);
        if (!info) return;
        const mode = info.mode & 0o777;
        const wanted = isDir ? DIR_MODE : FILE_MODE;
        // Looser than the owner alone: secrets and personal data readable by other users of the machine.
        if (mode & 0o077) problems.push({ check: "mode", key: relative(dataDir, path) || ".", where: path, fixable: true, message: `mode ${mode.toString(8)}, readable by others (lp keeps ${wanted.toString(8)})` });
      };
      await check(dataDir, true);
      await check(join(dataDir, "format.json"), false);
      for (const sub of ["data", "media", "quarantine", INDEX_DIR]) {
        await check(join(dataDir, sub), true);
        for await (const entry of walk(join(dataDir, sub))) await check(entry.path, entry.dir);
      }
      return problems;
    },
    async fixModes(problems) {
      const done: string[] = [];
      for (const problem of problems) {
        const isDir = (await lstat(problem.where)).isDirectory();
        await chmod(problem.where, isDir ? DIR_MODE : FILE_MODE);
        done.push(`chmod ${(isDir ? DIR_MODE : FILE_MODE).toString(8)} ${problem.where}`);
      }
      return done;
    },
    async quarantine(record) {
      const target = join(dataDir, "quarantine", relative(dataDir, record.where));
      await mkdir(dirname(target), { recursive: true, mode: DIR_MODE });
      // Never over an earlier quarantined copy: each keeps its own name.
      let free = target;
      for (let n = 1; await stat(free).then(() => true, () => false); n++) free = `${target}.${n}`;
      await rename(record.where, free);
      return free;
    },
  };
}
