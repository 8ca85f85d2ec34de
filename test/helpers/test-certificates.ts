// Certificates made per test run with @peculiar/x509 (a maintained X.509 library over Web Crypto): a CA,
// and leaves it signs for servers and clients. Nothing here is hand-written ASN.1.
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 24 * 60 * 60 * 1000;

export interface TestCa {
  cert: string;
  certificate: x509.X509Certificate;
  keys: CryptoKeyPair;
}

export interface TestLeaf {
  cert: string;
  key: string;
  /** SHA-256 of the DER, lower-case hex. */
  fingerprint256: string;
  /** SHA-1 of the DER, lower-case hex (what nginx's $ssl_client_fingerprint gives). */
  fingerprint1: string;
}

let serial = 1;

async function keysOf(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

export async function makeCa(name: string): Promise<TestCa> {
  const keys = await keysOf();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - day),
    notAfter: new Date(Date.now() + day),
    signingAlgorithm: algorithm,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: certificate.toString('pem'), certificate, keys };
}

/** A leaf for `name` (its CN); its DNS SANs are `name` unless `altNames` says otherwise (`[]`: none). */
export async function makeLeaf(ca: TestCa, name: string, use: 'server' | 'client', altNames?: readonly string[]): Promise<TestLeaf> {
  const keys = await keysOf();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: (serial++).toString(16).padStart(2, '0'),
    subject: `CN=${name}`,
    issuer: ca.certificate.subject,
    notBefore: new Date(Date.now() - day),
    notAfter: new Date(Date.now() + day),
    signingAlgorithm: algorithm,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([use === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(altNames?.length === 0
        ? []
        : [
            new x509.SubjectAlternativeNameExtension(
              use === 'server'
                ? [
                    { type: 'dns', value: 'localhost' },
                    { type: 'ip', value: '127.0.0.1' },
                  ]
                : (altNames ?? [name]).map((value) => ({ type: 'dns' as const, value })),
            ),
          ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const hex = async (hash: string) => Buffer.from(await webcrypto.subtle.digest(hash, certificate.rawData)).toString('hex');
  return {
    cert: certificate.toString('pem'),
    key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
    fingerprint256: await hex('SHA-256'),
    fingerprint1: await hex('SHA-1'),
  };
}
