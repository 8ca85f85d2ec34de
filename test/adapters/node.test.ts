import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createReceiver } from '../../src/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_node_tests';
const bytes = bytesOf(variantAPaid);
const headers = { 'content-type': 'application/json', 'x-signature': signBytes(bytes, secret) };

describe('node:http handler', () => {
  it('a stream some earlier code already read fails at once with body_already_parsed, never hangs', async () => {
    const handle = createNodeHandler(createReceiver({ secret }));
    const server = createServer(async (req, res) => {
      for await (const _chunk of req) void _chunk; // someone else consumed it
      handle(req, res);
    });
    const target = await serverTarget(server, '/webhooks/pix');
    try {
      const res = await target.send({ method: 'POST', headers, body: bytes });
      expect(res.status).toBe(500);
      expect(JSON.parse(res.body)).toMatchObject({ error: 'body_already_parsed' });
    } finally {
      await target.close();
    }
  });

  it('does not crash the process when the answer cannot be written', async () => {
    const handle = createNodeHandler(createReceiver({ secret }));
    const server = createServer((req, res) => {
      res.writeHead(202).write('already answering'); // headers sent: setHeader will throw
      handle(req, res);
      setTimeout(() => res.end(), 50);
    });
    const target = await serverTarget(server, '/webhooks/pix');
    try {
      const res = await target.send({ method: 'POST', headers, body: bytes }).catch((error: Error) => error);
      expect(res instanceof Error || res.status === 202).toBe(true);
    } finally {
      await target.close();
    }
  });
});
