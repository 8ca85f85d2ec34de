// The Mercado Pago emulator in its own process (its CPU is not the server's): one paid payment, no
// webhook URL (the bench sends the notifications itself). argv[2]: JSON credentials.
// Prints {"pid":…,"url":…,"paymentId":…}.
import { startEmulator } from 'pixhook/emulator';

const emulator = await startEmulator({ profile: 'mercado-pago', credentials: JSON.parse(process.argv[2]) });
const charge = emulator.createCharge({ amountInCents: 15990 });
await emulator.pay(charge.id);
console.log(JSON.stringify({ pid: process.pid, url: emulator.url, paymentId: charge.id }));
