// One word for what happened to a delivery, for the pills: a person deciding about money
// reads it before the status code. Shared by the server's rows and the client's live rows.

export type DeliveryState = 'handled' | 'duplicate' | 'held' | 'flagged' | 'failed' | 'forged';

interface StateFields {
  verified: boolean;
  status: number;
  reason?: string | undefined;
  warnings?: readonly string[] | undefined;
  attempts: readonly unknown[];
}

/**
 * `forged`: the signature did not match (or was missing); `failed`: any other refusal or error, or the
 * last handler run failed; `held`: the payment book holds it for review; `duplicate`: already
 * processed; `flagged`: accepted, with the reader's warnings or as an event this receiver does not know;
 * `handled`: the handlers ran.
 */
export function deliveryState(entry: StateFields): DeliveryState {
  if (!entry.verified) return 'forged';
  const last = entry.attempts.at(-1) as { outcome?: unknown } | undefined;
  if (entry.status >= 300 || (last !== undefined && last.outcome !== 'ok')) return 'failed';
  if (entry.reason === 'held') return 'held';
  if (entry.reason === 'duplicate') return 'duplicate';
  if (entry.reason === 'unknown_event' || (entry.warnings?.length ?? 0) > 0) return 'flagged';
  return 'handled';
}
