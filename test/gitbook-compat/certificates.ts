// A throwaway certificate authority for the loopback third parties: one CA (trusted by the host's
// sandbox workers through NODE_EXTRA_CA_CERTS) and a leaf per server name, made on demand with the
// openssl command line. Keys live in a temporary folder that close() removes.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Certificates {
  /** The CA certificate (PEM file), for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  caPem: string;
  /** The leaf key (one for every name). */
  key: string;
  /** A leaf certificate for `name` (a DNS name or an IP address), made once and cached. */
  leafFor(name: string): Promise<string>;
  close(): void;
}

/** Creates the CA; needs `openssl` on the PATH (OpenSSL 3: `req -x509 -CA`). */
export async function createCertificates(): Promise<Certificates> {
  const folder = mkdtempSync(path.join(tmpdir(), 'gitbook-compat-ca-'));
  const caKey = path.join(folder, 'ca.key');
  const caFile = path.join(folder, 'ca.pem');
  const leafKey = path.join(folder, 'leaf.key');
  try {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      caKey,
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      '/CN=gitbook-compat loopback CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', leafKey]);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(
      `could not make the loopback CA with openssl (${(error as Error).message.split('\n')[0]}): install OpenSSL 3`,
    );
  }
  const leaves = new Map<string, Promise<string>>();
  const make = async (name: string): Promise<string> => {
    // A server name is the guest's choice: only plain names and addresses reach openssl's arguments.
    if (!/^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$|^[\d.]+$/i.test(name))
      throw new Error(`not a server name: ${JSON.stringify(name).slice(0, 80)}`);
    const file = path.join(folder, `leaf-${leaves.size}.pem`);
    const san = /^[\d.]+$/.test(name) ? `IP:${name}` : `DNS:${name}`;
    await run('openssl', [
      'req',
      '-x509',
      '-new',
      '-key',
      leafKey,
      '-CA',
      caFile,
      '-CAkey',
      caKey,
      '-subj',
      '/CN=gitbook-compat loopback',
      '-addext',
      `subjectAltName=${san}`,
      '-addext',
      'basicConstraints=CA:FALSE',
      '-days',
      '2',
      '-out',
      file,
    ]);
    return readFileSync(file, 'utf8');
  };
  return {
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    key: readFileSync(leafKey, 'utf8'),
    leafFor(name) {
      const known = leaves.get(name);
      if (known !== undefined) return known;
      const made = make(name);
      leaves.set(name, made);
      return made;
    },
    close: () => rmSync(folder, { recursive: true, force: true }),
  };
}
