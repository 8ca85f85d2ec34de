import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A local endpoint that records every delivery and answers with the statuses given, then 200. */
export async function startRecorder(statuses: number[] = []) {
  const received: ReceivedDelivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    events: () => received.map((r) => (JSON.parse(r.body) as { event: string }).event),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
