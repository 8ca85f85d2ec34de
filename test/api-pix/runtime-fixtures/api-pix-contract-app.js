// One fetch app for the API Pix contract in another runtime: pixhook/api-pix behind pixhook/web on
// /webhooks/bank and below it, plus control routes the suite drives from Node (set the receiver up for a
// case, release a blocked handler, drain and read what the handlers saw).
const handlerSecretMessage = 'db password hunter2 exploded';

export function createApiPixContractApp({ createApiPixReceiver, createFetchHandler }) {
  let state;

  function setup({ options, handler }) {
    // A blocked handler polls a flag: some runtimes let no request wait on a promise another request resolves.
    let released = false;
    const handled = [];
    const counts = { runs: 0, invalid: 0 };
    const failed = new Set();
    const receiver = createApiPixReceiver(options)
      .onAny(async (event) => {
        counts.runs++;
        while (handler === 'blocked' && !released) await new Promise((resolve) => setTimeout(resolve, 5));
        const failOnceFor = typeof handler === 'object' && handler !== null ? handler.failOnceFor : undefined;
        if (
          failOnceFor !== undefined &&
          event.name === 'pix_received' &&
          event.pix.endToEndId === failOnceFor &&
          !failed.has(failOnceFor)
        ) {
          failed.add(failOnceFor);
          throw new Error(handlerSecretMessage);
        }
        if (handler === 'always-fail' || (handler === 'fail-once' && counts.runs === 1)) throw new Error(handlerSecretMessage);
        handled.push(event);
      })
      .onInvalid(() => void counts.invalid++);
    state = { receiver, handle: createFetchHandler(receiver), handled, counts, release: () => void (released = true) };
  }

  const json = (value) => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });

  return async function fetch(request, context) {
    const path = new URL(request.url).pathname;
    if (path === '/webhooks/bank' || path.startsWith('/webhooks/bank/')) return state.handle(request, context);
    if (path === '/_control/setup') {
      setup(await request.json());
      return json({ ok: true });
    }
    if (path === '/_control/release') {
      state.release();
      return json({ ok: true });
    }
    if (path === '/_control/drain') {
      await state.receiver.drain({ timeoutMs: 2_000 });
      return json({ handled: state.handled, ...state.counts });
    }
    if (path === '/_control/handled') return json({ handled: state.handled });
    return new Response('not found', { status: 404 });
  };
}
