import { spawn } from "node:child_process";

/** The platform's "open this URL" command. */
function opener(url: string): [string, string[]] {
  if (process.platform === "darwin") return ["open", [url]];
  if (process.platform === "win32") return ["cmd", ["/c", "start", "", url]];
  return ["xdg-open", [url]];
}

/** Opens `url` in the default browser, detached; `onFail` hears when the platform's opener cannot run. */
export function openUrl(url: string, onFail: (command: string) => void): void {
  const [command, args] = opener(url);
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => onFail(command));
  child.unref();
}
