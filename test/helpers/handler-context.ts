import type { HandlerContext } from '../../src/index.js';

/** A handler's context as an inline first attempt of a webhook gets it, for calling a handler directly. */
export function handlerContext(key: string, overrides: Partial<HandlerContext> = {}): HandlerContext {
  return {
    key,
    attempt: 1,
    mode: 'inline',
    source: 'webhook',
    signal: new AbortController().signal,
    markDuplicate: () => {},
    ...overrides,
  } as HandlerContext;
}
