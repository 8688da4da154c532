/**
 * Builds every workspace (`npm run build` at the root, and so `npm install`'s prepare), as many at once as the
 * machine has cores. Each package's tsup build is independent of the others' output (tsconfig.json's paths
 * resolve `@lp/*` to sources, for the bundles and the declarations alike), except the CLI, which copies the
 * dashboard UI the server's build writes. Most of a build is tsup's declaration pass, one core each, so on two
 * cores the whole build takes about half as long as one package after another.
 *
 * Each build's output is printed in one piece when it ends, so the log reads as a serial one.
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

/** Workspaces in the order a serial build would take them, each with the workspaces whose output it reads. */
const WORKSPACES = [
  ["packages/contract", []],
  ["packages/webhooks", []],
  ["core", []],
  ["packages/client", []],
  ["server", []],
  ["cli", ["server"]],
];

const slots = Math.max(1, Math.min(availableParallelism(), Number(process.env.LP_BUILD_JOBS) || Infinity));
const done = new Set();
const running = new Set();
const waiting = [...WORKSPACES];
let failed = false;

function build(workspace) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "build", "--workspace", workspace], { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on("close", (code) => {
      process.stdout.write(Buffer.concat(output));
      if (code !== 0) process.stderr.write(`build of ${workspace} failed (exit code ${code})\n`);
      resolve(code === 0);
    });
  });
}

await new Promise((finished) => {
  const next = () => {
    if (failed || waiting.length === 0) {
      if (running.size === 0) finished();
      return;
    }
    while (running.size < slots) {
      const index = waiting.findIndex(([, needs]) => needs.every((n) => done.has(n)));
      if (index === -1) return;
      const [workspace] = waiting.splice(index, 1)[0];
      running.add(workspace);
      void build(workspace).then((ok) => {
        running.delete(workspace);
        if (ok) done.add(workspace);
        else failed = true;
        next();
      });
    }
  };
  next();
});
process.exit(failed ? 1 : 0);
