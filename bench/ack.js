// Section 3: acknowledgement latency in background mode while every handler takes 5 s.
import { runJson, startServer } from './lib/child.js';
import { quick } from './lib/stats.js';

const plan = quick ? { rate: 50, durationSec: 1 } : { rate: 100, durationSec: 10 };
const server = await startServer('ack-server.js');
try {
  const result = await runJson('ack-client.js', [JSON.stringify({ port: server.info.port, ...plan })]);
  if (result.ok !== result.sent) throw new Error(`ack: ${result.sent - result.ok} deliveries were not answered 200`);
  console.log(JSON.stringify({ ...result, durationSec: plan.durationSec, handlerMs: 5000 }));
} finally {
  await server.stop();
}
