/** Rows of the media blobs, kept in the database on PostgreSQL only (migration 0002; files on SQLite). */
export interface MediaTables {
  media: {
    /** The media path, `products/{productId}/{imageId}.png`. */
    path: string;
    bytes: Uint8Array;
    media_type: string;
    created_at: string;
  };
}
