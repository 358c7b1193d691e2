// jose (a devDependency, bundled into an integration as the host bundles it) inside a real isolate:
// JWTs signed and verified with HS256, RS256, PS256, ES256 and EdDSA, JWEs with enc A256GCM, keys
// generated there (generateKeyPair) or imported (importJWK, importPKCS8, importSPKI). Every token
// is checked on both sides: the isolate verifies what Node's jose signed and Node's jose verifies
// what the isolate signed, so both agree on the standard, not merely with themselves.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as jose from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, envelope, json } from './harness.ts';

const INTEGRATION = `
import { createIntegration } from 'sandbox-api';
import * as jose from 'jose';

const claims = { sub: 'integration', scope: 'read' };
const bytes = (text) => jose.base64url.decode(text);

async function jws(alg, signKey, verifyKey, hostToken) {
  const token = await new jose.SignJWT(claims).setProtectedHeader({
    alg }).setIssuedAt().setExpirationTime('5m').sign(signKey);
  const own = await jose.jwtVerify(token, verifyKey, { algorithms: [alg] });
  const host = hostToken === undefined ? null : (await jose.jwtVerify(hostToken, verifyKey, {
    algorithms: [alg] })).payload.sub;
  const [head, body, signature] = token.split('.');
  const forged = head + '.' + jose.base64url.encode(JSON.stringify({ ...claims, scope: 'admin' })) + '.' + signature;
  const refused = await jose.jwtVerify(forged, verifyKey).then(() => 'accepted', (error) => error.code);
  return { token, own: own.payload.sub, header: own.protectedHeader.alg, host, refused };
}

export default createIntegration({
  async fetch(request) {
    const input = await request.json();
    const results = {};

    results.HS256 = await jws('HS256', bytes(input.secret), bytes(input.secret), input.tokens.HS256);

    const rsaPrivate = await jose.importPKCS8(input.rsa.pkcs8, 'RS256');
    const rsaPublic = await jose.importSPKI(input.rsa.spki, 'RS256');
    results.RS256 = await jws('RS256', rsaPrivate, rsaPublic, input.tokens.RS256);

    const ps = await jose.generateKeyPair('PS256');
    results.PS256 = { ...(await jws('PS256', ps.privateKey, ps.publicKey)), spki: await jose.exportSPKI(ps.publicKey) };

    const ecPrivate = await jose.importJWK(input.ec.private, 'ES256');
    const ecPublic = await jose.importJWK(input.ec.public, 'ES256');
    results.ES256 = await jws('ES256', ecPrivate, ecPublic, input.tokens.ES256);

    const ed = await jose.generateKeyPair('EdDSA');
    results.EdDSA = { ...(await jws('EdDSA', ed.privateKey, ed.publicKey)), spki: await jose.exportSPKI(ed.publicKey) };
    results.privateKeyHidden = await jose.exportJWK(ed.privateKey).then(() => 'exported', (error) => error.name);

    const secret = bytes(input.secret);
    const plaintext = new TextEncoder().encode('the integration says hello');
    const jwe = await new jose.CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir',
      enc: 'A256GCM' }).encrypt(secret);
    const opened = await jose.compactDecrypt(jwe, secret);
    const fromHost = await jose.compactDecrypt(input.jwe, secret);
    const oaepPublic = await jose.importSPKI(input.rsa.spki, 'RSA-OAEP-256');
    const wrapped = await new jose.CompactEncrypt(plaintext).setProtectedHeader({ alg: 'RSA-OAEP-256',
      enc: 'A256GCM' }).encrypt(oaepPublic);
    const tampered = jwe.slice(0, -3) + (jwe.endsWith('AAA') ? 'BBB' : 'AAA');
    results.A256GCM = {
      jwe,
      wrapped,
      opened: new TextDecoder().decode(opened.plaintext),
      enc: opened.protectedHeader.enc,
      fromHost: new TextDecoder().decode(fromHost.plaintext),
      tampered: await jose.compactDecrypt(tampered, secret).then(() => 'opened', (error) => error.code),
    };
    return Response.json(results);
  },
});`;

const encoder = new TextEncoder();
const secret = randomBytes(32);
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const claims = { sub: 'host', scope: 'read' };

let harness: Harness;
let results: Record<string, Record<string, string | null>>;

const hostToken = (alg: string, key: Parameters<jose.SignJWT['sign']>[0]) =>
  new jose.SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt().setExpirationTime('5m').sign(key);

beforeAll(async () => {
  harness = await Harness.create();
  await harness.loadSource(INTEGRATION);
  const input = {
    secret: jose.base64url.encode(secret),
    rsa: {
      pkcs8: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      spki: rsa.publicKey.export({ type: 'spki', format: 'pem' }),
    },
    ec: { private: ec.privateKey.export({ format: 'jwk' }), public: ec.publicKey.export({ format: 'jwk' }) },
    tokens: {
      HS256: await hostToken('HS256', secret),
      RS256: await hostToken('RS256', rsa.privateKey),
      ES256: await hostToken('ES256', ec.privateKey),
    },
    jwe: await new jose.CompactEncrypt(encoder.encode('the host says hello'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .encrypt(secret),
  };
  const response = await harness.dispatch(
    envelope(
      {
        type: 'fetch',
        request: { method: 'POST', url: 'https://public.test/jose', headers: [['content-type', 'application/json']] },
      },
      encoder.encode(JSON.stringify(input)),
    ),
  );
  expect(response.status, JSON.stringify(harness.logs)).toBe(200);
  results = json(response) as typeof results;
}, 60_000);
afterAll(() => harness?.dispose());

describe('jose inside an integration', () => {
  it('signs and verifies JWTs with HS256, RS256 and ES256 keys it imported, both ways with Node', async () => {
    const keys = { HS256: secret, RS256: rsa.publicKey, ES256: ec.publicKey };
    for (const [alg, key] of Object.entries(keys)) {
      expect(results[alg]).toMatchObject({
        own: 'integration',
        header: alg,
        host: 'host',
        refused: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
      const verified = await jose.jwtVerify(results[alg].token as string, key, { algorithms: [alg] });
      expect(verified.payload).toMatchObject({ sub: 'integration', scope: 'read' });
    }
  });

  it('signs with PS256 and EdDSA keys it generated, which Node verifies with the exported public keys', async () => {
    for (const alg of ['PS256', 'EdDSA']) {
      expect(results[alg]).toMatchObject({
        own: 'integration',
        header: alg,
        refused: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      });
      const publicKey = await jose.importSPKI(results[alg].spki as string, alg);
      const verified = await jose.jwtVerify(results[alg].token as string, publicKey, { algorithms: [alg] });
      expect(verified.payload.sub).toBe('integration');
    }
    // jose generates private keys non-extractable: their material never enters the isolate.
    expect(results.privateKeyHidden).toBe('TypeError');
  });

  it('encrypts and decrypts JWEs with enc A256GCM (dir and RSA-OAEP-256), both ways with Node', async () => {
    const jwe = results.A256GCM;
    expect(jwe).toMatchObject({
      opened: 'the integration says hello',
      enc: 'A256GCM',
      fromHost: 'the host says hello',
      tampered: 'ERR_JWE_DECRYPTION_FAILED',
    });
    const direct = await jose.compactDecrypt(jwe.jwe as string, secret);
    expect(new TextDecoder().decode(direct.plaintext)).toBe('the integration says hello');
    const unwrapped = await jose.compactDecrypt(jwe.wrapped as string, rsa.privateKey);
    expect(unwrapped.protectedHeader).toMatchObject({ alg: 'RSA-OAEP-256', enc: 'A256GCM' });
    expect(new TextDecoder().decode(unwrapped.plaintext)).toBe('the integration says hello');
  });
});
