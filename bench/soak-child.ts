import { spawn, type ChildProcess } from "node:child_process";
import { bundle } from "../core/src/testing/bundle-entry.js";
import { ROOT } from "./lib/root.js";

/** What the soak server prints once it listens. */
export interface SoakServerInfo {
  url: string;
  account: string;
  token: string;
  appId: string;
  appSecret: string;
}

/** The soak server's process. */
export interface SoakChild {
  child: ChildProcess;
  info: SoakServerInfo;
  /** Asks the server for a full garbage collection and resolves with its heap in use afterwards and its young generation's size, MB. */
  heapAfterGc(): Promise<{ heapUsedMb: number; newSpaceMb: number }>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Bundles and runs `bench/soak-server.ts` on plain node with `--expose-gc` (so the heap can be measured
 * after a collection: the figure a leak moves, unlike RSS, which follows the collector's timing), and
 * resolves once it printed its JSON line.
 */
export async function startSoakServer(dir: string): Promise<SoakChild> {
  const file = await bundle("bench/soak-server.ts");
  const child = spawn(process.execPath, ["--expose-gc", file], { cwd: ROOT, env: { ...process.env, SOAK_DIR: dir }, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines: ((line: string) => void)[] = [];
  let buffer = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.shift()?.(line);
    }
  });
  const nextLine = (what: string, ms: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the soak server did not answer ${what} within ${ms} ms`)), ms);
      lines.push((line) => (clearTimeout(timer), resolve(line)));
      void exited.then((code) => reject(new Error(`the soak server exited with ${code}`)));
    });
  const info = JSON.parse(await nextLine("its start", 60_000)) as SoakServerInfo;
  return {
    child,
    info,
    async heapAfterGc() {
      const answer = nextLine("a heap request", 10_000);
      child.kill("SIGUSR2");
      return JSON.parse(await answer) as { heapUsedMb: number; newSpaceMb: number };
    },
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
