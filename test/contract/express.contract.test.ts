import { createServer } from 'node:http';
import express4 from 'express4';
import express5 from 'express';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { serverTarget } from './contract-target.js';
import { runContractSuite } from './run-contract-suite.js';

for (const [name, express] of [
  ['Express 4', express4],
  ['Express 5', express5],
] as const) {
  runContractSuite(`${name} middleware over HTTP`, (receiver) => {
    const app = express();
    app.use('/webhooks/pix', createExpressMiddleware(receiver));
    return serverTarget(createServer(app), '/webhooks/pix');
  });
}
