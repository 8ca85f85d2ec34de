import { describeEndToEnd } from './end-to-end-setup.js';

// The emulated PSP ↔ createApiPixReceiver in Express, over real mTLS both ways: the PSP's client certificate is
// checked in the handshake and by the receiver, and the receiver serves the run's server certificate.
describeEndToEnd('emulator ↔ createApiPixReceiver in Express over mTLS', 'express');
