import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Settings shared by every scenario. */
export interface BenchContext {
  quick: boolean;
  /** Seconds per measured load run. */
  seconds: number;
  /** The "large" collection size. */
  large: number;
  /** The "small" collection size. */
  small: number;
  log(message: string): void;
  /** A fresh temporary folder, removed by {@link BenchContext.cleanup}. */
  tempDir(label: string): string;
  cleanup(): void;
}

/** Builds the context from the command line flags. */
export function createContext(argv: string[]): BenchContext {
  const quick = argv.includes("--quick");
  const dirs: string[] = [];
  return {
    quick,
    seconds: quick ? 2 : 5,
    // --quick keeps every scenario but seeds 20k records instead of 100k (seeding dominates the run).
    large: quick ? 20_000 : 100_000,
    small: 1_000,
    log: (message) => process.stderr.write(`[bench] ${message}\n`),
    tempDir(label) {
      const dir = mkdtempSync(join(tmpdir(), `lp-bench-${label}-`));
      dirs.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
