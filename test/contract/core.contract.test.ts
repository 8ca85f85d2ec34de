import { runContractSuite } from './run-contract-suite.js';

// The core itself, called as an adapter would call it.
runContractSuite('core receive()', async (receiver) => ({
  async send(request) {
    const result = await receiver.receive({ method: request.method, headers: request.headers, body: request.body });
    return { status: result.status, headers: result.headers, body: result.body };
  },
  close: async () => {},
}));
