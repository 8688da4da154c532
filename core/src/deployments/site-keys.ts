/** Storage keys of sites: the pointer per address, and the immutable files per deployment. */
export const siteKeys = {
  pointer: (accountId: string, slug: string) => `sites:${accountId}:${slug}`,
  files: (accountId: string, pageId: string, deploymentId: string) => `sitefiles:${accountId}:${pageId}:${deploymentId}`,
  allFiles: (accountId: string, pageId: string) => `sitefiles:${accountId}:${pageId}`,
};

/** Public address of a page's site. */
export const siteUrl = (publicUrl: string, accountId: string, slug: string) => `${publicUrl}/sites/${accountId}/${slug}/`;
