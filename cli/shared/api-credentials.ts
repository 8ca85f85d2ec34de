import { UsageError } from './cli-args.js';

/** The gateway's credentials for the commands that call its API, from PIXHOOK_API_KEY, PIXHOOK_API_SECRET and PIXHOOK_BASE_URL. */
export function credentialsFromEnv(): { apiKey: string; apiSecret: string; baseUrl: string } {
  const env = {
    apiKey: process.env['PIXHOOK_API_KEY'],
    apiSecret: process.env['PIXHOOK_API_SECRET'],
    baseUrl: process.env['PIXHOOK_BASE_URL'],
  };
  const names = { apiKey: 'PIXHOOK_API_KEY', apiSecret: 'PIXHOOK_API_SECRET', baseUrl: 'PIXHOOK_BASE_URL' } as const;
  const missing = (Object.keys(names) as Array<keyof typeof names>).filter((k) => !env[k]).map((k) => names[k]);
  if (missing.length > 0) throw new UsageError(`set ${missing.join(', ')} in the environment`);
  if (!URL.canParse(env.baseUrl as string)) throw new UsageError('PIXHOOK_BASE_URL must be a URL');
  return env as { apiKey: string; apiSecret: string; baseUrl: string };
}
