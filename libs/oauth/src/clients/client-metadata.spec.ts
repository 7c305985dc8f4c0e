import { checkRedirectUri, clientFromMetadataDocument, isMetadataDocumentUrl, parseRegistration, redirectUriAllowed } from './client-metadata.js';
import { isPublicAddress } from './client-metadata-fetch.js';

describe('redirect URIs a client may register', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'http://127.0.0.1:33418/callback',
    'http://localhost:6274/oauth/callback',
    'http://[::1]:8080/cb',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ])('accepts %s', (uri) => expect(checkRedirectUri(uri)).toBe(uri));

  it.each([
    ['javascript:alert(1)', 'uses javascript:'],
    ['data:text/html,hi', 'uses data:'],
    ['file:///etc/passwd', 'uses file:'],
    ['http://claude.ai/callback', 'plain http to another machine'],
    ['http://127.0.0.1.attacker.example/cb', 'plain http to another machine'],
    ['https://claude.ai/cb#fragment', 'has a fragment'],
    ['/relative/callback', 'is not an absolute URL'],
    [`https://claude.ai/cb?pad=${'x'.repeat(2100)}`, 'at most 2048 characters'],
  ])('refuses %s (%s)', (uri, reason) => {
    expect(() => checkRedirectUri(uri)).toThrow(reason);
  });
});

describe('matching a redirect URI at /authorize', () => {
  const registered = ['https://app.example.com/cb', 'http://127.0.0.1:5000/callback'];

  it('is exact, but for the port of a loopback http redirect (RFC 8252 §7.3)', () => {
    expect(redirectUriAllowed(registered, 'https://app.example.com/cb')).toBe(true);
    expect(redirectUriAllowed(registered, 'http://127.0.0.1:61234/callback')).toBe(true);
    expect(redirectUriAllowed(registered, 'https://app.example.com/cb/')).toBe(false);
    expect(redirectUriAllowed(registered, 'https://app.example.com/cb?x=1')).toBe(false);
    expect(redirectUriAllowed(registered, 'https://APP.example.com/cb')).toBe(false);
    expect(redirectUriAllowed(registered, 'https://app.example.com:8443/cb')).toBe(false);
    expect(redirectUriAllowed(registered, 'http://127.0.0.1:61234/other')).toBe(false);
    expect(redirectUriAllowed(registered, 'http://localhost:5000/callback')).toBe(false);
  });
});

describe('a registration (RFC 7591)', () => {
  it('defaults to a confidential client named "Unnamed client" and refuses what it cannot serve', () => {
    expect(parseRegistration({ redirect_uris: ['https://a.example.com/cb'] })).toEqual({
      clientName: 'Unnamed client',
      clientUri: null,
      redirectUris: ['https://a.example.com/cb'],
      authMethod: 'client_secret_basic',
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    expect(() => parseRegistration({ redirect_uris: [] })).toThrow('redirect_uris must be a non-empty list');
    expect(() => parseRegistration({ redirect_uris: ['https://a.example.com/cb'], grant_types: ['client_credentials'] })).toThrow('grant_types');
    expect(() => parseRegistration({ redirect_uris: ['https://a.example.com/cb'], token_endpoint_auth_method: 'private_key_jwt' })).toThrow(
      'token_endpoint_auth_method',
    );
    expect(() => parseRegistration({ redirect_uris: ['https://a.example.com/cb'], client_name: 'Claude\nVerified by Anthropic' })).toThrow(
      'client_name holds U+000A, a control, invisible or direction-changing character',
    );
    expect(() => parseRegistration([])).toThrow('must be a JSON object');
  });

  it.each([
    ['a right-to-left override', '\u202Eedualc', 'U+202E'],
    ['a left-to-right isolate', 'Cl\u2066aude\u2069', 'U+2066'],
    ['a pop directional isolate', 'Claude\u2069', 'U+2069'],
    ['a zero-width space', 'Cla\u200Bude', 'U+200B'],
    ['a byte order mark', '\uFEFFClaude', 'U+FEFF'],
    ['a Hangul filler', 'Claude\u3164', 'U+3164'],
  ])('refuses a client name with %s, naming the character', (_what, name, codePoint) => {
    expect(() => parseRegistration({ redirect_uris: ['https://a.example.com/cb'], client_name: name })).toThrow(`client_name holds ${codePoint}`);
  });

  it('takes names in any script, with accents and spaces', () => {
    for (const name of ['Claude', 'Cursor 1.2 (beta)', 'Pâtisserie Ñandú', '会话助手', 'مساعد البريد'])
      expect(parseRegistration({ redirect_uris: ['https://a.example.com/cb'], client_name: name }).clientName).toBe(name);
  });

  it('takes the JWT-bearer grant (ID-JAG) from a client with a secret only', () => {
    const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
    expect(parseRegistration({ redirect_uris: ['https://a.example.com/cb'], grant_types: [jwtBearer] }).grantTypes).toEqual([jwtBearer]);
    expect(() => parseRegistration({ redirect_uris: ['https://a.example.com/cb'], grant_types: [jwtBearer], token_endpoint_auth_method: 'none' })).toThrow(
      'is for clients with a secret',
    );
  });
});

describe('a client metadata document (CIMD)', () => {
  const url = 'https://app.example.com/oauth/client.json';

  it('names its own URL, is public, and gets its host name as its name when it gives none', () => {
    expect(clientFromMetadataDocument(url, { client_id: url, redirect_uris: ['https://app.example.com/cb'] })).toEqual({
      id: url,
      name: 'app.example.com',
      verified: true,
      redirectUris: ['https://app.example.com/cb'],
      authMethod: 'none',
    });
    expect(() => clientFromMetadataDocument(url, { client_id: 'https://other.example.com/c.json', redirect_uris: ['https://a.example.com/cb'] })).toThrow(
      'must be its own URL',
    );
    expect(() => clientFromMetadataDocument(url, { client_id: url, client_secret: 's', redirect_uris: ['https://a.example.com/cb'] })).toThrow(
      'must not hold a client secret',
    );
    expect(() =>
      clientFromMetadataDocument(url, { client_id: url, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: ['https://a.example.com/cb'] }),
    ).toThrow('use none');
  });

  it('is told from a registered id by its https URL with a path', () => {
    expect(isMetadataDocumentUrl(url, false)).toBe(true);
    expect(isMetadataDocumentUrl('https://app.example.com/', false)).toBe(false);
    expect(isMetadataDocumentUrl('http://app.example.com/client.json', false)).toBe(false);
    expect(isMetadataDocumentUrl('http://127.0.0.1:8000/client.json', true)).toBe(true);
    expect(isMetadataDocumentUrl('mrb_client_abc', false)).toBe(false);
  });
});

describe('addresses a client metadata document may be fetched from', () => {
  it.each([
    ['93.184.215.14', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.0.0.8', false],
    ['172.16.4.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});
