import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getRepositoryToken } from '@nestjs/typeorm';
import { decodeJwt, SignJWT } from 'jose';
import type { Repository } from 'typeorm';
import { startServices, type RunningServices } from '../../../../../apps/server/test/support/service-module.js';
import { AuthModule } from '../../auth.module.js';
import { AccountStatus } from '../../users/account-status.js';
import { UsersService } from '../../users/users.service.js';
import { ConnectionEntity } from './connection.entity.js';
import { ConnectionsService, InvalidGrantError, ProviderUnavailableError, type ConnectionGrant, type ProviderHeld } from './connections.service.js';
import { ServerKeys } from './server-keys.js';

const ISSUER = 'http://mirobody.test';
const RESOURCE = `${ISSUER}/mcp`;
const PROVIDER = 'https://login.example.com';

let services: RunningServices;
let connections: ConnectionsService;
let rows: Repository<ConnectionEntity>;
let keys: ServerKeys;

beforeAll(async () => {
  services = await startServices({}, [AuthModule]);
  connections = services.context.get(ConnectionsService);
  rows = services.context.get(getRepositoryToken(ConnectionEntity), { strict: false });
  keys = services.context.get(ServerKeys);
}, 60_000);

afterAll(() => services?.close());

const newUser = async (subject: string) =>
  (await services.context.get(UsersService).callerFromToken({ issuer: PROVIDER, subject, emailVerified: false, roles: [] })).userId;

const grant = (userId: string, extra: Partial<ConnectionGrant> = {}): ConnectionGrant => ({
  userId,
  clientId: 'https://claude.ai/oauth/client.json',
  clientName: 'Claude',
  clientVerified: true,
  scopes: ['memory:read'],
  resource: RESOURCE,
  issuer: ISSUER,
  ...extra,
});

const rowOf = (id: string) => rows.findOneByOrFail({ id });

describe('ConnectionsService', () => {
  it('names the connection it opened, which its access token carries', async () => {
    const { connectionId, tokens } = await connections.connect(grant(await newUser('ann')));
    expect(decodeJwt(tokens.access_token).cid).toBe(connectionId);
    expect((await rowOf(connectionId)).clientName).toBe('Claude');
    expect(tokens.refresh_token).toMatch(/^mrb_rt_/);
  });

  it('keeps the provider’s refresh token sealed, hands it to the provider at a refresh, and keeps the one it rotated to', async () => {
    const userId = await newUser('bo');
    const { connectionId, tokens } = await connections.connect(grant(userId, { roles: ['admin'], providerRefreshToken: 'provider-refresh-1' }));
    const stored = (await rowOf(connectionId)).providerRefreshToken!;
    expect(stored).not.toContain('provider-refresh-1');
    expect(stored.split('.')).toHaveLength(5);
    expect((await connections.callerFor(tokens.access_token, ISSUER, RESOURCE)).roles).toEqual(['admin']);
    let asked: ProviderHeld | undefined;
    const next = await connections.refresh(tokens.refresh_token!, grant(userId).clientId, ISSUER, undefined, async (held) => {
      asked = held;
      return { roles: [], providerRefreshToken: 'provider-refresh-2' };
    });
    expect(asked).toEqual({ issuer: PROVIDER, subject: 'bo', providerRefreshToken: 'provider-refresh-1' });
    expect(await keys.unseal((await rowOf(connectionId)).providerRefreshToken!)).toBe('provider-refresh-2');
    expect((await connections.callerFor(next.access_token, ISSUER, RESOURCE)).roles).toEqual([]);
  });

  it('revokes the connection (and forgets the provider’s token) when the provider refuses; gives the refresh token back when it cannot be asked', async () => {
    const userId = await newUser('cy');
    const { connectionId, tokens } = await connections.connect(grant(userId, { providerRefreshToken: 'provider-refresh' }));
    const clientId = grant(userId).clientId;
    await expect(
      connections.refresh(tokens.refresh_token!, clientId, ISSUER, undefined, async () => {
        throw new ProviderUnavailableError('the provider is down');
      }),
    ).rejects.toThrow(ProviderUnavailableError);
    await expect(
      connections.refresh(tokens.refresh_token!, clientId, ISSUER, undefined, async () => {
        throw new InvalidGrantError('the provider refused');
      }),
    ).rejects.toThrow('the provider refused');
    const revoked = await rowOf(connectionId);
    expect([revoked.revokedAt === null, revoked.providerRefreshToken]).toEqual([false, null]);
    await expect(connections.callerFor(tokens.access_token, ISSUER, RESOURCE)).rejects.toThrow('its connection is revoked');
  });

  it('gives a disabled account no token, at a connection or a refresh, and spends no refresh token on it', async () => {
    const userId = await newUser('di');
    const { tokens } = await connections.connect(grant(userId));
    const accounts = services.context.get(AccountStatus);
    await accounts.setDisabled(userId, true);
    await expect(connections.connect(grant(userId))).rejects.toThrow(new InvalidGrantError('The account is disabled: ask an administrator'));
    await expect(connections.refresh(tokens.refresh_token!, grant(userId).clientId, ISSUER)).rejects.toThrow('The account is disabled');
    await accounts.setDisabled(userId, false);
    await expect(connections.refresh(tokens.refresh_token!, grant(userId).clientId, ISSUER)).resolves.toEqual(
      expect.objectContaining({ token_type: 'Bearer' }),
    );
  });

  it('finds the connection of a token whose cid is written in capitals: a UUID is one in either case', async () => {
    const { connectionId, tokens } = await connections.connect(grant(await newUser('ed')));
    const [key] = await keys.signingKeys();
    const claims = decodeJwt(tokens.access_token);
    const shouted = await new SignJWT({ ...claims, cid: connectionId.toUpperCase() })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key!.kid })
      .sign(key!.privateKey);
    expect((await connections.callerFor(shouted, ISSUER, RESOURCE)).userId).toBe(claims.sub);
  });

  it('takes up the live connection an identity provider granted before, with no refresh token, and the latest roles', async () => {
    const userId = await newUser('flo');
    const first = await connections.connectByAssertion({ ...grant(userId), assertionIssuer: PROVIDER, roles: ['admin'] });
    const second = await connections.connectByAssertion({ ...grant(userId), assertionIssuer: PROVIDER });
    expect(second.connectionId).toBe(first.connectionId);
    expect(second.tokens.refresh_token).toBeUndefined();
    expect((await connections.callerFor(second.tokens.access_token, ISSUER, RESOURCE)).roles).toEqual([]);
    expect((await connections.list(userId)).map((view) => view.granted_by)).toEqual([PROVIDER]);
    const wider = await connections.connectByAssertion({ ...grant(userId), scopes: ['memory:read', 'files:read'], assertionIssuer: PROVIDER });
    expect(wider.connectionId).not.toBe(first.connectionId);
  });
});
