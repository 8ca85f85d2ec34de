import type { ResourceState, StoredHeld } from '../book/backend.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';

// The book's JSON as Redis holds it. Lua's cjson writes an empty array as `{}`: every list is read back
// as a list whatever it looked like.

const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

export function parseResource(text: string): ResourceState {
  const value = parse(text) as ResourceState;
  value.timeline = list<ResourceState['timeline'][number]>(value.timeline);
  for (const entry of value.timeline) entry.reasons = list(entry.reasons);
  value.payments = list(value.payments);
  value.disputes = list(value.disputes);
  return value;
}

export function parseStoredHeld(text: string): StoredHeld {
  const value = parse(text) as StoredHeld;
  value.held.violations = list(value.held.violations);
  return value;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RedisUnavailableError('payment book: a stored entry is not JSON');
  }
}
