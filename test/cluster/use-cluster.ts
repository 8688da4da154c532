import { afterAll, beforeAll } from "vitest";
import { startCluster, type Cluster, type ClusterOptions } from "./cluster.js";

/**
 * Starts a cluster ({@link startCluster}) before the tests of the enclosing `describe` and stops it after
 * them; call it in the `describe` body. The answer stands for the running cluster: each property read goes
 * to the one `beforeAll` started, so tests and helpers use it as a {@link Cluster}; reading it before then
 * throws. Kept out of cluster.ts, which the bench imports without vitest.
 */
export function useCluster(options: ClusterOptions): Cluster {
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster(options);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return new Proxy({} as Cluster, {
    get(_, property) {
      if (!cluster) throw new Error("the cluster has not started: useCluster's beforeAll did not run or failed");
      return Reflect.get(cluster, property);
    },
  });
}
