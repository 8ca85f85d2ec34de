/**
 * What the connection itself proves about a request, as an adapter read it from the socket: never
 * from a header. The standard API Pix receiver authenticates with it (mTLS, the proxy's address).
 */
export interface PeerConnection {
  /** The socket's peer address (never `X-Forwarded-For`). */
  address?: string;
  /** Present when the request came over TLS that Node terminated. */
  tls?: PeerTls;
}

export interface PeerTls {
  /** Node's verdict: the client certificate chains to the server's `ca`. */
  authorized: boolean;
  /** Node's reason when not authorized (e.g. `UNABLE_TO_VERIFY_LEAF_SIGNATURE`). */
  error?: string;
  /** False when the client sent no certificate. */
  presented: boolean;
  /** The leaf's subject common name. */
  subjectName?: string;
  /** The leaf's `subjectaltname` (`DNS:a, DNS:b`). */
  altNames?: string;
  /** SHA-256 of each certificate from the leaf up (the leaf first), lower-case hex without separators. */
  chain?: readonly string[];
}
