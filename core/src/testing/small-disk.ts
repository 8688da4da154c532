import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmdirSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small tmpfs mounted for a test: a real disk that fills up, or turns read-only. */
export interface SmallDisk {
  /** Where it is mounted. */
  dir: string;
  /** Remounts it read-only or writable; the kernel refuses read-only (EBUSY) while a file is open for writing. */
  remount(mode: "ro" | "rw"): void;
  /** Unmounts it and removes its mount point. */
  unmount(): void;
}

let unavailable: string | null | undefined;

/**
 * Why no small disk can be mounted here, or null when one can (root with CAP_SYS_ADMIN, as in CI's container):
 * tried once with a tmpfs mounted and unmounted at once, so a suite decides its skip when it is collected and
 * mounts its own disk in a hook, which a filtered run skips along with the unmount.
 */
export function whySmallDiskUnavailable(): string | null {
  if (unavailable !== undefined) return unavailable;
  if (process.getuid?.() !== 0) return (unavailable = "not running as root (mounting a small tmpfs needs it)");
  try {
    mountSmallDisk("64k").unmount();
    unavailable = null;
  } catch (error) {
    unavailable = `cannot mount a tmpfs here (${String((error as { stderr?: Buffer }).stderr ?? error).trim()})`;
  }
  return unavailable;
}

/** Mounts a tmpfs of `size` (`"2m"`) whose root has `mode`; throws when this process may not. */
export function mountSmallDisk(size: string, mode = "0755"): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), "lp-small-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=${mode}`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return {
    dir,
    remount: (to) => execFileSync("mount", ["-o", `remount,${to}`, dir], { stdio: "pipe" }),
    unmount() {
      execFileSync("umount", [dir], { stdio: "pipe" });
      rmdirSync(dir);
    },
  };
}

/**
 * Writes `path` until the disk refuses (ENOSPC), halving the chunk each time down to one byte: what is left
 * is too little for any page a database would add. Removing the file makes the room again.
 */
export function fillDisk(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (let size = chunk.length; size >= 1; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}
