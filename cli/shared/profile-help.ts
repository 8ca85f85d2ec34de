import { reconcileBackendEnvHelp } from './reconcile-backends.js';
import type { FlagHelp } from './command-help.js';

// The flags and variables of a command's `--profile api-pix`, listed as flags (each marked `api-pix:`), not
// hidden in `--profile`'s description; and the environment of each profile, saying which profile needs it.

/** `pixhook emulator --profile api-pix`'s own flags. */
export const emulatorApiPixFlagsHelp: FlagHelp[] = [
  { flag: '--client-id <id>', meaning: 'api-pix: the OAuth2 client id clients must use (default: generated)' },
  { flag: '--client-secret <s>', meaning: 'api-pix: the OAuth2 client secret clients must use (default: generated, and printed)' },
  { flag: '--pix-key <key>', meaning: "api-pix: the merchant's receiving key the PSP knows (default: a fixed EVP key)" },
  { flag: '--certificates-dir <dir>', meaning: "api-pix: where the run's certificates are written (default: a temporary directory)" },
  {
    flag: '--group-window-ms <n>',
    meaning: 'api-pix: Pix of one key received within this window go in one call, 0–86400000 ms (default 100)',
  },
  { flag: '--disable-after <n>', meaning: 'api-pix: failed calls in a row after which the webhook is disabled, 1–1000000 (default 15)' },
];

/** `pixhook reconcile --profile api-pix`'s own flags. */
export const reconcileApiPixFlagsHelp: FlagHelp[] = [
  {
    flag: '--from <iso>',
    meaning: 'api-pix: where the cursor starts when none is kept, an ISO 8601 date (default: 24 h before the first run)',
  },
  { flag: '--window <d>', meaning: 'api-pix: the length of each GET /pix window (default 1h)' },
  {
    flag: '--overlap <d>',
    meaning: 'api-pix: each window starts this long before the cursor, so a Pix listed late is still seen (default 5m)',
  },
  { flag: '--settle <d>', meaning: 'api-pix: windows end this long before now (default 60s)' },
  { flag: '--page-size <n>', meaning: 'api-pix: Pix per page of GET /pix, 1–1000 (default 100)' },
  {
    flag: '--key <chave>',
    meaning:
      "api-pix: the receiver's keys (repeatable): a listed Pix to another key is held as unknown_key (default: PIXHOOK_API_PIX_KEY, else every key)",
  },
];

/** `pixhook reconcile`'s environment: the gateway's variables, or the API Pix's, by profile. */
export const reconcileEnvHelp: Record<string, string> = {
  PIXHOOK_API_KEY: 'the gateway API key (required with --profile gateway)',
  PIXHOOK_API_SECRET: 'the gateway API secret (required with --profile gateway)',
  PIXHOOK_BASE_URL: "the gateway API's base URL (required with --profile gateway)",
  PIXHOOK_API_PIX_URL: "the PSP's API Pix base URL (required with --profile api-pix)",
  PIXHOOK_API_PIX_CLIENT_ID: 'the OAuth2 client id (required with --profile api-pix)',
  PIXHOOK_API_PIX_CLIENT_SECRET: 'the OAuth2 client secret (required with --profile api-pix)',
  PIXHOOK_API_PIX_CLIENT_CERT: 'the client certificate (PEM file) for mTLS (required with --profile api-pix)',
  PIXHOOK_API_PIX_CLIENT_KEY: "the client certificate's private key (PEM file) (required with --profile api-pix)",
  PIXHOOK_API_PIX_CA: "api-pix: the CA (PEM file) of the PSP's server certificate (default: the system's)",
  PIXHOOK_API_PIX_TOKEN_URL: 'api-pix: the OAuth2 token URL (default: <URL>/oauth/token)',
  PIXHOOK_API_PIX_KEY: 'api-pix: the receiving key (chave) the listing keeps to',
  ...reconcileBackendEnvHelp,
};
