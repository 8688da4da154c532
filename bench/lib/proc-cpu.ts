import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used so far, in ms, read from /proc/<pid>/stat; null where there
 * is no /proc (not Linux). Measuring the server's own CPU per request is steadier than throughput on a
 * machine whose cores the load generator and other work share: throughput moves with what else runs,
 * the work a request costs much less.
 */
export function processCpuMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces), from field 3: utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
}
