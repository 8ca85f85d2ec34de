import { luaSources } from './commands/lua-sources.js';
import { withTakeLease } from './order-lease-scripts.js';
import { defineScript } from './redis-client.js';

/** The order lease, the dedupe claim and the payment book's read in one script (src/redis/commands/claim-and-read.lua). */
export const claimAndReadScript = defineScript(withTakeLease(luaSources['claim-and-read']));

/** A joined claim given up: its claim, lease and ticket, each only if its own (src/redis/commands/leave-claim.lua). */
export const leaveClaimScript = defineScript(luaSources['leave-claim']);
