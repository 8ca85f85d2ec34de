import { webcrypto } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The files one emulator run made: its CA, its server certificate, and the client certificate (both sides use it). */
export interface ApiPixCertificatePaths {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

interface ApiPixCertificates {
  paths: ApiPixCertificatePaths;
  pem: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 86_400_000;

function pemOf(label: string, der: ArrayBuffer): string {
  const base64 = Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n');
  return `-----BEGIN ${label}-----\n${base64.trimEnd()}\n-----END ${label}-----\n`;
}

/**
 * A CA, a server certificate (localhost, 127.0.0.1, ::1) and a client certificate, made fresh for a run with
 * `@peculiar/x509` (Web Crypto keys, P-256) and written to `dir` with the keys readable only by their owner.
 */
export async function makeRunCertificates(dir: string, hosts: readonly string[] = []): Promise<ApiPixCertificates> {
  // Loaded here, not at the top: only the api-pix profile needs it.
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Crypto);
  const notBefore = new Date(Date.now() - day);
  const notAfter = new Date(Date.now() + 30 * day);
  let serial = 1;
  const serialNumber = () => `0${(serial++).toString(16)}${Buffer.from(webcrypto.getRandomValues(new Uint8Array(8))).toString('hex')}`;

  const caKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: 'CN=pixhook emulator CA (api-pix)',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  async function issue(name: string, usage: 'server' | 'client') {
    const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const names = ['localhost', '127.0.0.1', '::1', ...hosts].map((value) =>
      /^[\d.]+$|:/.test(value) ? { type: 'ip' as const, value } : { type: 'dns' as const, value },
    );
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serialNumber(),
      subject: `CN=${name}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
        new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
        ...(usage === 'server' ? [new x509.SubjectAlternativeNameExtension(names)] : []),
        await x509.AuthorityKeyIdentifierExtension.create(ca),
      ],
    });
    const key = pemOf('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    return { cert: cert.toString('pem') + '\n', key };
  }

  const server = await issue('localhost', 'server');
  const client = await issue('pixhook-emulator-client', 'client');
  const pem = {
    ca: ca.toString('pem') + '\n',
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
  };
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const paths: ApiPixCertificatePaths = {
    ca: join(dir, 'ca.pem'),
    serverCert: join(dir, 'server-cert.pem'),
    serverKey: join(dir, 'server-key.pem'),
    clientCert: join(dir, 'client-cert.pem'),
    clientKey: join(dir, 'client-key.pem'),
  };
  await Promise.all([
    writeFile(paths.ca, pem.ca, { mode: 0o644 }),
    writeFile(paths.serverCert, pem.serverCert, { mode: 0o644 }),
    writeFile(paths.serverKey, pem.serverKey, { mode: 0o600 }),
    writeFile(paths.clientCert, pem.clientCert, { mode: 0o644 }),
    writeFile(paths.clientKey, pem.clientKey, { mode: 0o600 }),
  ]);
  return { paths, pem };
}
