import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { bundle } from "../../core/src/testing/bundle-entry.js";
import { childProbe, type ChildLoop } from "./loop-delay.js";
import { ROOT } from "./root.js";

export { ROOT };

/** A started child that reported itself with one JSON line on stdout. */
export interface Child<T> {
  child: ChildProcess;
  info: T;
  /** The child's event-loop delay, measured inside it (bench/lib/loop-hook.ts). */
  loop: ChildLoop;
  stop(): Promise<void>;
}

/**
 * Node flags that load the event-loop hook into a child (`bench/lib/loop-hook.ts`, bundled); the child
 * must also be spawned with an IPC channel (`stdio: [..., "ipc"]`) for the bench to read it.
 */
export async function loopHookFlags(): Promise<string[]> {
  return ["--import", pathToFileURL(await bundle("bench/lib/loop-hook.ts")).href];
}

/**
 * Bundles `script` (see core/src/testing/bundle-entry.ts), runs it on node with `env`, and resolves with the first stdout line
 * that parses as JSON. Rejects when the child exits first or after `timeoutMs`.
 */
export async function startChild<T>(script: string, env: Record<string, string>, timeoutMs = 300_000): Promise<Child<T>> {
  return spawnChild<T>(await bundle(script), await loopHookFlags(), script, env, timeoutMs);
}

function spawnChild<T>(file: string, hook: string[], script: string, env: Record<string, string>, timeoutMs: number): Promise<Child<T>> {
  const child = spawn(process.execPath, ["--max-old-space-size=4096", "--expose-gc", ...hook, file], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const loop = childProbe(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${script} did not report within ${timeoutMs} ms: ${err}`));
    }, timeoutMs);
    child.stderr!.on("data", (chunk) => (err = (err + chunk).slice(-4000)));
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      for (const line of out.split("\n")) {
        if (!line.trim().startsWith("{")) continue;
        try {
          const info = JSON.parse(line) as T;
          clearTimeout(timer);
          out = "";
          resolve({ child, info, loop, stop });
          return;
        } catch {
          // Not a whole line yet.
        }
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${script} exited early: ${err}`));
    });
  });
}

/** Resident set size of a process in MB (Linux /proc, else `ps`). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    if (kb) return kb / 1024;
  } catch {
    // Not Linux.
  }
  return NaN;
}
