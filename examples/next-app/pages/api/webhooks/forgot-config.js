import { createReceiver } from 'pixhook';
import { createPagesApiHandler } from 'pixhook/next';

// Deliberately missing `export const config = { api: { bodyParser: false } }`: the test checks that
// pixhook answers body_already_parsed with that fix instead of failing verification obscurely.
export default createPagesApiHandler(() => createReceiver({ secret: process.env.PIXHOOK_SECRET }));
