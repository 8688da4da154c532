import { execFile, spawn, spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DockerfileParser, type Instruction } from "dockerfile-ast";
import { watchProcess, type LpProcess } from "../../cli/src/e2e/processes.js";

/** The uid and gid of the `node` user of the node images, which the image runs as. */
export const NODE_UID = 1000;

/** The programs the container is made with: util-linux's unshare, nsenter and setpriv, coreutils' chroot, iproute2's ip. */
const TOOLS = ["unshare", "nsenter", "setpriv", "chroot", "ip"];

/** Whether this machine can run a process as PID 1 of its own namespaces: root, the {@link TOOLS}, and the right to unshare. */
export const isRoot = process.getuid?.() === 0;
export const missingTools = TOOLS.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`], { env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" } }).status !== 0);
export const canUnshare = isRoot && missingTools.length === 0 && spawnSync("unshare", ["--pid", "--fork", "--mount", "--net", "true"]).status === 0;

/** The Dockerfile at the repository root, parsed: its instructions, the last stage's apart. */
export function readDockerfile() {
  const text = readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8");
  const instructions = DockerfileParser.parse(text).getInstructions();
  const lastFrom = instructions.map((i) => i.getKeyword()).lastIndexOf("FROM");
  return { text, instructions, runtime: instructions.slice(lastFrom) };
}

/** The JSON array of an exec-form instruction (`ENTRYPOINT ["lp", ...]`, `HEALTHCHECK ... CMD [...]`); null for the shell form. */
export function execForm(instruction: Instruction): string[] | null {
  const args = instruction.getArgumentsContent() ?? "";
  const json = /^(?:(?:--\S+\s+)*CMD\s+)?(\[.*\])\s*$/s.exec(args.trim())?.[1];
  if (!json) return null;
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) && parsed.every((a) => typeof a === "string") ? parsed : null;
  } catch {
    return null;
  }
}

// Run inside new PID, mount and network namespaces: the container's file system is a folder with the
// machine's /usr, /etc and /dev bound in, its own /proc and /tmp, the executable at /usr/local/bin's place
// (/opt/lp/bin, on PATH) and /data; then, as the image does, the command runs as the `node` user in
// /home/node, by exec all the way down, so lp itself is PID 1.
const ENTER = `set -e
ip link set lo up
for d in usr etc dev; do mount --rbind "/$d" "$ROOT/$d"; done
mount -t proc proc "$ROOT/proc"
mount -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp"
exec chroot "$ROOT" setpriv --reuid=${NODE_UID} --regid=${NODE_UID} --clear-groups env -i -C /home/node PATH=/opt/lp/bin HOME=/home/node "$@"`;

/**
 * A container's file system for the executable at `exe`: a folder holding /data (kept across runs of
 * {@link runAsPid1}), /home/node, and mount points, owned as the image has them.
 */
export function createContainerRoot(exe: string) {
  const root = mkdtempSync(join(tmpdir(), "lp-container-"));
  // mkdtemp makes it 0700: as "/" of the container, the node user must be able to enter it.
  chmodSync(root, 0o755);
  for (const dir of ["usr", "etc", "dev", "proc", "tmp", "opt/lp/bin", "data", "home/node"]) mkdirSync(join(root, dir), { recursive: true });
  for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(root, link));
  copyFileSync(exe, join(root, "opt/lp/bin/lp"));
  chmodSync(join(root, "opt/lp/bin/lp"), 0o755);
  for (const dir of ["data", "home/node"]) chownSync(join(root, dir), NODE_UID, NODE_UID);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * Starts `command` (exec form) as PID 1 of new namespaces in `root`, as the `node` user. The returned
 * process is unshare's, which exits with the command's status; `pid()` is the command's own id on this
 * machine, for signals and for {@link execInside}.
 */
export function runAsPid1(root: string, command: string[]): LpProcess & { pid(): number } {
  const child = spawn("unshare", ["--pid", "--fork", "--mount", "--net", "--mount-proc", "sh", "-c", ENTER, "enter", ...command], { env: { ROOT: root, PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, stdio: ["ignore", "pipe", "pipe"] });
  // Assigned onto the watcher, not spread: its stdout and stderr are getters that read what has arrived so far.
  return Object.assign(watchProcess(child, command.join(" ")), {
    pid() {
      // unshare's only child is the namespace's PID 1.
      const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/).map(Number);
      if (children.length !== 1 || !children[0]) throw new Error(`unshare (${child.pid}) has children ${children.join(", ")}`);
      return children[0];
    },
  });
}

/**
 * Runs `command` inside the namespaces of the process `pid` (its root, /home/node, its network), as the
 * `node` user with the image's PATH: what `docker exec` and Docker's HEALTHCHECK do.
 */
export function execInside(pid: number, command: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const vars = Object.entries({ PATH: "/opt/lp/bin", HOME: "/home/node", NO_COLOR: "1", ...env }).map(([k, v]) => `${k}=${v}`);
  const args = ["--target", String(pid), "--mount", "--net", "--pid", "--root", "--wd", "setpriv", `--reuid=${NODE_UID}`, `--regid=${NODE_UID}`, "--clear-groups", "env", "-i", ...vars, ...command];
  return new Promise((resolve) => {
    execFile("nsenter", args, { encoding: "utf8", timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The `Name:\tvalue` lines of /proc/<pid>/status. */
export function procStatus(pid: number): Record<string, string> {
  return Object.fromEntries(readFileSync(`/proc/${pid}/status`, "utf8").trim().split("\n").map((line) => line.split(/:\s*/, 2) as [string, string]));
}
