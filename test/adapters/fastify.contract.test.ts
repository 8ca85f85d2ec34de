import Fastify from 'fastify';
import pixhookFastify from '../../adapters/fastify/index.js';
import { runContractSuite } from '../contract/run-contract-suite.js';
import { urlTarget } from './listen-target.js';

runContractSuite('Fastify 5 plugin over HTTP', async (receiver) => {
  const app = Fastify();
  await app.register(pixhookFastify, { receiver, path: '/webhooks/pix' });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return urlTarget(`${base}/webhooks/pix`, () => app.close());
});
