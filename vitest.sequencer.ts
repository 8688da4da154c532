import { statSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Seconds a suite takes on a two-core machine, for the suites that take ten or more: what the order is computed
 * from when vitest has no timings of its own yet (a clean clone, CI). A stale figure only changes the order.
 */
const SLOW_SUITES: [RegExp, number][] = [
  [/^test\/quality\//, 60],
  [/^test\/crash\/index-agreement/, 45],
  [/^test\/crash\/crash-loop-postgres/, 40],
  [/^server\/src\/dashboard\/dashboard(-console)?\.browser/, 35],
  [/^test\/cluster\/process-kill/, 35],
  [/^core\/src\/webhooks\/webhooks-cluster/, 30],
  [/^server\/src\/redos-sweep/, 25],
  [/^core\/src\/ports\/worker-death/, 25],
  [/^test\/hostile\/descriptors/, 22],
  [/^server\/src\/routes\/webhooks-scale/, 20],
  [/^server\/src\/dashboard\/dashboard-actions\.browser/, 20],
  [/^test\/cluster\/(agreement|races)/, 15],
  [/^test\/release\//, 15],
  [/^test\/exe\/exe\.test/, 12],
  [/^server\/src\/routes\/(isolation\.matrix|fuzz\.property|products-list)/, 12],
  [/^(test\/cluster|test\/crash)\//, 10],
];
/** A suite expected to take at least this long starts before every shorter one, whatever its project. */
const SLOW_MS = 10_000;

/**
 * Longest first, so that the last suites to finish are short ones rather than a minute-long one started late:
 * vitest's own timings of the last run when it has them, else `SLOW_SUITES`, else the file's size. The slow
 * suites of every project come first; the rest follow project by project, so a worker that shares its module
 * cache between files (`isolate: false`) keeps it from one file to the next.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const expected = new Map<TestSpecification, number>();
    for (const spec of files) {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getTestSpecificationResult(spec)?.duration;
      const known = SLOW_SUITES.find(([pattern]) => pattern.test(path))?.[1];
      expected.set(spec, cached ?? (known === undefined ? statSync(spec.moduleId).size / 10 : known * 1000));
    }
    const ms = (spec: TestSpecification) => expected.get(spec)!;
    return [...files].sort((a, b) => {
      const slowA = ms(a) >= SLOW_MS;
      const slowB = ms(b) >= SLOW_MS;
      if (slowA !== slowB) return slowA ? -1 : 1;
      if (!slowA && a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
      return ms(b) - ms(a);
    });
  }
}
