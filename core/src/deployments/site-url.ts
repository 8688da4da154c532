/** Public address of a page's site. */
export const siteUrl = (publicUrl: string, accountId: string, slug: string) => `${publicUrl}/sites/${accountId}/${slug}/`;
