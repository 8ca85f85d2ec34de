import type { ApiPixEmulator } from '../../src/emulator/index.js';

/**
 * The API Pix connection as `PIXHOOK_API_PIX_*=…` lines, the variables `pixhook reconcile --profile api-pix`
 * reads: printed by `pixhook emulator --profile api-pix` and `pixhook dev --profile api-pix`. A client
 * secret the user gave is never printed (`(as given)`); one generated for the run is.
 */
export function apiPixEnvLines(emulator: ApiPixEmulator, secretGiven = false): string[] {
  const { certificates, credentials } = emulator;
  return [
    `PIXHOOK_API_PIX_URL=${emulator.url}`,
    `PIXHOOK_API_PIX_TOKEN_URL=${emulator.url}/oauth/token`,
    `PIXHOOK_API_PIX_CLIENT_ID=${credentials.clientId}`,
    `PIXHOOK_API_PIX_CLIENT_SECRET=${secretGiven ? '(as given)' : credentials.clientSecret}`,
    `PIXHOOK_API_PIX_KEY=${credentials.pixKey}`,
    `PIXHOOK_API_PIX_CA=${certificates.ca}`,
    `PIXHOOK_API_PIX_SERVER_CERT=${certificates.serverCert}`,
    `PIXHOOK_API_PIX_SERVER_KEY=${certificates.serverKey}`,
    `PIXHOOK_API_PIX_CLIENT_CERT=${certificates.clientCert}`,
    `PIXHOOK_API_PIX_CLIENT_KEY=${certificates.clientKey}`,
  ];
}
