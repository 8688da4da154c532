import { VERSION } from "../runtime/version.js";

// The entry of the single executable (`npm run build:exe`): the CLI's own entry, whose `--version` also names
// the Node inside, as that Node is part of what was released.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`lp ${VERSION} (node ${process.version}, single executable)\n`);
} else {
  const [{ main }, { processIo }] = await Promise.all([import("../main.js"), import("../runtime/io.js")]);
  process.exitCode = await main(args, processIo());
}
