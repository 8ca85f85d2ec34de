import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { describeGiven } from '../../shared/option-checks.js';

/**
 * `cert`, `key` and `ca` take PEM text or a file path: text that holds a `-----BEGIN` block is PEM, anything else
 * is read as a path at construction, so a wrong path fails there (naming the option, never the file's content).
 */
export function readPem(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new PixhookConfigError(`pixhook: \`${name}\` must be PEM text or the path of a PEM file, got ${describeGiven(value)}`);
  }
  if (value.includes('-----BEGIN ')) return value;
  let text: string;
  try {
    // Reached at run time: the entry point that holds this client imports no Node built-in (see mtls-transport).
    text = process.getBuiltinModule('node:fs').readFileSync(value, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must be PEM text or the path of a PEM file; ${value} could not be read (${String(code ?? 'error')})`,
    );
  }
  if (!text.includes('-----BEGIN ')) throw new PixhookConfigError(`pixhook: \`${name}\`: ${value} holds no PEM block`);
  return text;
}
