import { execFile, spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/**
 * The flusher's loop: reads one folder per line, runs coreutils' `sync -f` on it (syncfs(2) of the file system
 * that holds it) and answers one line, its exit status, a tab, and what it printed (newlines folded).
 */
const LOOP = `while IFS= read -r dir; do out=$(sync -f -- "$dir" 2>&1); s=$?; printf '%s\\t%s\\n' "$s" "$(printf %s "$out" | tr '\\n\\t' '  ')"; done`;

/** A `sync -f` that failed: its exit status and what it printed, as `execFile` reports one. */
export class SyncfsError extends Error {
  constructor(
    readonly status: number,
    readonly stderr: string,
  ) {
    super(`sync -f exited with ${status}: ${stderr}`);
  }
}

interface Request {
  resolve: () => void;
  reject: (error: unknown) => void;
  root: string;
}

type Flusher = ChildProcessByStdio<Writable, Readable, null>;

let flusher: Flusher | null = null;
/** Set once `sh` could not be started: every flush then runs `sync -f` directly. */
let noShell = false;
let waiting: Request[] = [];
let buffered = "";

/**
 * Runs `sync -f root` in a shell kept for the purpose, started once per process: starting a child process
 * forks this one, which holds the event loop for as long as copying its page tables takes (10 to 30 ms for
 * a server of 150 MB on a busy 2-core machine), once per checkpoint otherwise. The shell's own forks of
 * `sync` cost this process nothing. Requests are answered in order. If the shell cannot be started or
 * dies, what waits on it (and what comes next) runs `sync -f` as its own child process instead.
 */
export function syncfs(root: string): Promise<void> {
  // One folder per line: a name with a line break goes the plain way.
  if (root.includes("\n")) return execFileAsync("sync", ["-f", root]).then(() => {});
  const shell = flusher ?? (noShell ? null : start());
  if (!shell) return execFileAsync("sync", ["-f", root]).then(() => {});
  return new Promise((resolve, reject) => {
    // The answer keeps this process alive while it is awaited (a stop flushing its last checkpoint), no longer.
    if (waiting.length === 0) (shell.stdout as Readable & { ref?: () => void }).ref?.();
    waiting.push({ resolve, reject, root });
    shell.stdin.write(`${root}\n`);
  });
}

function start(): Flusher | null {
  let child: Flusher;
  try {
    child = spawn("sh", ["-c", LOOP], { stdio: ["pipe", "pipe", "ignore"] });
  } catch {
    return null;
  }
  flusher = child;
  buffered = "";
  // Neither the shell nor its pipes keep this process alive; it ends when its stdin closes with this process.
  child.unref();
  (child.stdin as Writable & { unref?: () => void }).unref?.();
  (child.stdout as Readable & { unref?: () => void }).unref?.();
  child.stdin.on("error", () => {});
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      const request = waiting.shift();
      if (waiting.length === 0) (child.stdout as Readable & { unref?: () => void }).unref?.();
      if (!request) continue;
      const tab = line.indexOf("\t");
      const status = Number(line.slice(0, tab));
      if (status === 0) request.resolve();
      else request.reject(new SyncfsError(status, line.slice(tab + 1)));
    }
  });
  const gone = () => {
    if (flusher !== child) return;
    flusher = null;
    // Whatever it had not answered is flushed the plain way: a dead helper is not a failed flush.
    const left = waiting;
    waiting = [];
    for (const request of left) execFileAsync("sync", ["-f", request.root]).then(() => request.resolve(), request.reject);
  };
  child.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "EACCES") noShell = true;
    gone();
  });
  child.on("exit", gone);
  return child;
}

/** The pid of the shell that runs the flushes, or null when none runs (for `lp doctor`-style checks and tests). */
export function syncfsShellPid(): number | null {
  return flusher?.pid ?? null;
}
