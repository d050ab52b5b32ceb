// An external authorization server for the tests: oidc-provider issuing JWT access
// tokens (RS256) by client credentials (RFC 6749 §4.4) for the resource
// "https://tacker.test" (audience "tacker"), with the client's roles in a `roles` claim
// (as Keycloak puts realm roles into tokens), and opaque access tokens for the resource
// "https://opaque.tacker.test" (same audience), which its RFC 7662 introspection
// endpoint (/token/introspection) describes to the client `tacker` (secret
// `tacker-secret`). Listens on 127.0.0.1:<port> (argv[2]) and prints "ready" once it
// answers.
import Provider from 'oidc-provider';

const port = Number(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;
// Client id -> roles.
const roles = {
  'e2e-member': ['member'],
  'e2e-reader': ['reader'],
  'e2e-two-tenants': ['member'],
};
// Client id -> extra claims (e2e-two-tenants: a tenant claim naming two tenants, which
// names no one tenant and must be refused).
const claims = {
  'e2e-two-tenants': { tenant: ['t1', 't2'] },
};
const client = (id, scope) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope,
  token_endpoint_auth_method: 'client_secret_basic',
});

const provider = new Provider(issuer, {
  clients: [...Object.keys(roles).map((id) => client(id, 'reader member')), client('tacker', 'reader')],
  extraTokenClaims: (ctx, token) => ({
    roles: roles[token.clientId] ?? [],
    ...(claims[token.clientId] ?? {}),
  }),
  scopes: ['reader', 'member'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'https://tacker.test',
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: 'reader member',
        audience: 'tacker',
        accessTokenFormat: resource === 'https://opaque.tacker.test' ? 'opaque' : 'jwt',
        accessTokenTTL: 300,
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.listen(port, '127.0.0.1', () => console.log('ready'));
