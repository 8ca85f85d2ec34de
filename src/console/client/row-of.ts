/**
 * What a row of the deliveries page stands for: one event, by its dedupe key. A standard API Pix call that
 * notifies a refund carries its Pix again (a duplicate of the payment) and the refund: its row is the
 * refund's (`pix_refund_updated`), not the payment's. Used by the server's pages and the live rows alike.
 */
export function rowOf(entry: { id: string; key?: string; event?: string; items?: readonly { event: string; key?: string }[] }): {
  key: string;
  event: string | undefined;
} {
  const news = entry.items?.find((item) => item.event !== 'pix_received' && item.key !== undefined);
  if (news !== undefined) return { key: news.key!, event: news.event };
  return { key: entry.key ?? `entry:${entry.id}`, event: entry.event };
}
