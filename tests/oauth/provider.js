// A real authorization server for the OAuth tests: oidc-provider issuing
// JWT access tokens (ES256) with the client credentials grant and resource
// indicators (RFC 8707).
//
//   node provider.js PORT KEYS_FILE
//
// KEYS_FILE holds the private signing keys as a JWK set, the first EC key
// signing access tokens; it is written here when absent. The clients:
// `finance-app`, `finance-app-short` (whose tokens live one second),
// `opaque-app` (whose tokens are opaque, checked by introspection) and
// `stranger-app` (secret: the id with `-secret`), all allowed the scope
// `invoices:read`; `mcp-server`, the resource server's own client, which
// introspects tokens. A resource is any absolute URL.

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, keysFile] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

function privateJwk(type, options) {
  const { privateKey } = generateKeyPairSync(type, options);
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), use: 'sig' };
}

if (!existsSync(keysFile)) {
  const keys = [
    { ...privateJwk('ec', { namedCurve: 'P-256' }), alg: 'ES256' },
    { ...privateJwk('rsa', { modulusLength: 2048 }), alg: 'RS256' },
  ];
  writeFileSync(keysFile, JSON.stringify({ keys }));
}
const jwks = JSON.parse(readFileSync(keysFile, 'utf8'));

const client = (id) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope: 'invoices:read',
});

const provider = new Provider(issuer, {
  clients: [
    client('finance-app'),
    client('finance-app-short'),
    client('opaque-app'),
    client('stranger-app'),
    client('mcp-server'),
  ],
  jwks,
  scopes: ['invoices:read'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource, client) => ({
        scope: 'invoices:read',
        audience: resource,
        accessTokenTTL: client.clientId.endsWith('-short') ? 1 : 300,
        accessTokenFormat: client.clientId === 'opaque-app' ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});

provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`listening ${issuer}\n`);
});
