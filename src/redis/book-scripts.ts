import { luaSources } from './commands/lua-sources.js';
import { defineScript } from './redis-client.js';

// The payment book's keys, all under one prefix whose {hash tag} puts them in one Cluster slot:
// r:<resource key> (STRING, the resource's JSON), held (HASH held id → stored held event), held-keys
// (HASH "<resource key>\n<dedupe key>" → open held id), open (ZSET open held ids by heldAt), closed
// (ZSET closed held ids by closedAt, trimmed), disputed (SET of resource keys with disputes), expecting.
// Writes are compare-and-set on the SHA1 of what was read, so two instances never interleave on one resource.
// The Lua is in src/redis/commands/*.lua, embedded at build time (scripts/generate-lua.js).

/** KEYS[1] resource · KEYS[2] held-keys · KEYS[3] held · KEYS[4] expecting · ARGV[1] held-keys field → [resource, expecting, open held]. */
export const readForRecordScript = defineScript(luaSources['read-for-record']);

/** KEYS… any keys → their values ('' when absent); KEYS[1] may be a HASH with ARGV[1] its field. */
export const readScript = defineScript(luaSources['read-keys']);

/**
 * KEYS: 1 resource · 2 held · 3 held-keys · 4 open · 5 closed · 6 disputed · 7 expecting.
 * ARGV: 1 resource SHA read ('' absent, '*' not written) · 2 resource JSON · 3 retention ms (0: none) ·
 * 4 disputes (2 open, 1 closed only, 0 none) · 5 resource key · 6 held id ('' none) · 7 held SHA read ('' absent) ·
 * 8 held JSON · 9 op (open | close | keep) · 10 score ms · 11 held-keys field · 12 closed kept · 13 '1' marks expectations in use.
 * → 1 written, 0 something changed since it was read (read again and retry).
 */
export const commitScript = defineScript(luaSources['commit-book']);

/** KEYS[1] open · KEYS[2] held → the stored open held events, oldest first. */
export const listHeldScript = defineScript(luaSources['list-held']);

/** KEYS[1] disputed · ARGV[1] resource key prefix → the JSON of every resource with disputes; forgets expired ones. */
export const listDisputedScript = defineScript(luaSources['list-disputed']);

/** Every key of one book, from its prefix. */
export interface BookKeys {
  resource(rk: string): string;
  held: string;
  heldKeys: string;
  open: string;
  closed: string;
  disputed: string;
  expecting: string;
}

export function bookKeys(prefix: string): BookKeys {
  return {
    resource: (rk) => `${prefix}r:${rk}`,
    held: `${prefix}held`,
    heldKeys: `${prefix}held-keys`,
    open: `${prefix}open`,
    closed: `${prefix}closed`,
    disputed: `${prefix}disputed`,
    expecting: `${prefix}expecting`,
  };
}
