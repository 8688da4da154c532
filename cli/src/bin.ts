import { VERSION } from "./runtime/version.js";

// The entry stays tiny: `--version` answers without loading commander; everything else goes to main.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`${VERSION}\n`);
} else {
  const [{ main }, { processIo }] = await Promise.all([import("./main.js"), import("./runtime/io.js")]);
  process.exitCode = await main(args, processIo());
}
