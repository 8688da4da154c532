/** One figure of a scenario module. `met` says whether `target` holds; run.ts turns these into table rows. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  target?: string;
  met?: boolean;
}
