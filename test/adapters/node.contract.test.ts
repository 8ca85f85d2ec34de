import { createNodeHandler } from '../../adapters/node/index.js';
import { runContractSuite } from '../contract/run-contract-suite.js';
import { nodeHandlerTarget } from './listen-target.js';

runContractSuite('node:http handler over HTTP', async (receiver) => nodeHandlerTarget(createNodeHandler(receiver)));
