import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** The inodes of the established TCP sockets whose peer is `port` on this machine (IPv4 and IPv6 tables). */
function socketsTo(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address rem_address st ... inode: the peer's port is after the colon; 01 is ESTABLISHED.
      if (fields.length > 9 && fields[2]?.endsWith(`:${hexPort}`) && fields[3] === "01") inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/**
 * Which of `pids` hold an open connection to `port` (a local webhook receiver), read from /proc, so a test
 * can tell which process is in the middle of an attempt (an idle keep-alive connection counts too, until the
 * receiver closes it). Empty when none does, or when /proc cannot be read.
 */
export function processesConnectedTo(port: number, pids: readonly number[]): number[] {
  const inodes = socketsTo(port);
  return pids.filter((pid) => {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return false;
    }
    return fds.some((fd) => {
      let target = "";
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return false;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      return inode !== undefined && inodes.has(inode);
    });
  });
}
