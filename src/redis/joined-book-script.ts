import { luaSources } from './commands/lua-sources.js';
import { defineScript } from './redis-client.js';

/** The dedupe claim and the payment book's read in one script (src/redis/commands/claim-and-read.lua). */
export const claimAndReadScript = defineScript(luaSources['claim-and-read']);
