import { Signer } from './signer.js';

const ROOT = 'a-root-secret-of-at-least-32-characters!';

describe('Signer', () => {
  const signer = new Signer(ROOT);

  it('gives back the payload of a token it signed', () => {
    const files = signer.forPurpose('file-url');
    expect(files.verify(files.sign('user-1/report.pdf'))).toBe('user-1/report.pdf');
  });

  it('refuses a token made for another purpose, with another root secret, or altered', () => {
    const token = signer.forPurpose('file-url').sign('x');
    expect(signer.forPurpose('request-state').verify(token)).toBeNull();
    expect(new Signer(`${ROOT}-other`).forPurpose('file-url').verify(token)).toBeNull();
    const [payload, expiry, mac] = token.split('.');
    expect(signer.forPurpose('file-url').verify(`${Buffer.from('y').toString('base64url')}.${expiry}.${mac}`)).toBeNull();
    expect(signer.forPurpose('file-url').verify(`${payload}.${expiry}`)).toBeNull();
    expect(signer.forPurpose('file-url').verify('')).toBeNull();
  });

  it('refuses an expired token and accepts one that has not expired', () => {
    const urls = signer.forPurpose('file-url');
    expect(urls.verify(urls.sign('x', new Date(Date.now() - 1000)))).toBeNull();
    expect(urls.verify(urls.sign('x', new Date(Date.now() + 60_000)))).toBe('x');
  });

  it('refuses a token whose expiry was moved', () => {
    const urls = signer.forPurpose('file-url');
    const [payload, , mac] = urls.sign('x', new Date(Date.now() - 1000)).split('.');
    expect(urls.verify(`${payload}.0.${mac}`)).toBeNull();
  });

  it('checks raw MACs in constant time and by purpose', () => {
    const sessions = signer.forPurpose('mcp-session');
    expect(sessions.checkMac('nonce', sessions.mac('nonce'))).toBe(true);
    expect(sessions.checkMac('nonce', signer.forPurpose('other').mac('nonce'))).toBe(false);
    expect(sessions.checkMac('nonce', 'short')).toBe(false);
  });

  it('refuses a root secret too short to be one', () => {
    expect(() => new Signer('short')).toThrow('at least 32 characters');
  });
});
