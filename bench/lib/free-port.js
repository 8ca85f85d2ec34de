import { createServer } from 'node:net';

/** A port the OS just handed out on 127.0.0.1 (for a server the bench starts itself). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
