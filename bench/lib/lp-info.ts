/** What `bench/servers/lp-server.ts` prints once it is ready (one JSON line). */
export interface LpInfo {
  url: string;
  account: string;
  token: string;
  productId: string;
  seedMs: number;
  firstListMs: number;
}
