import { luaSources } from './commands/lua-sources.js';
import { defineScript } from './redis-client.js';

// One lease per resource: its value is the fence `<counter>:<owner>` (`<token>:<owner>` when the joined claim takes
// it: a token unique to that take, so the fast path makes no counter key); the counter key outlives the lease so a
// later counted fence of the resource orders after an earlier one. Waiters hold tickets in arrival order. Every key
// of one resource shares a slot. The scripts' KEYS and ARGV are described in their .lua files.

/** A script that takes the lease: its own text after the one `takeLease` function (src/redis/commands/take-lease-function.lua). */
export function withTakeLease(source: string): string {
  return luaSources['take-lease-function'] + source;
}

/** Takes the lease, or queues (renews) the asker's ticket (src/redis/commands/take-lease.lua). */
export const takeLeaseScript = defineScript(withTakeLease(luaSources['take-lease']));

/** Gives a worker's finished run leases back, then takes the next jobs' (src/redis/commands/take-many.lua). */
export const takeManyScript = defineScript(withTakeLease(luaSources['take-many']));

/** Renews the lease for its fence (src/redis/commands/extend-lease.lua). */
export const extendLeaseScript = defineScript(luaSources['extend-lease']);

/** Gives the lease back for its fence; tickets untouched (src/redis/commands/give-lease.lua). */
export const giveLeaseScript = defineScript(luaSources['give-lease']);

/** A waiter leaves the ticket queue (src/redis/commands/withdraw-ticket.lua). */
export const withdrawTicketScript = defineScript(luaSources['withdraw-ticket']);
