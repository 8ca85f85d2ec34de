// What the connection proves lives in src/shared (a source's authentication reads it); intake and the adapter kit import it from here.
export type { PeerConnection, PeerTls } from '../shared/peer-connection.js';
