import { describe, expect, it } from '@jest/globals';
import type { Repository } from 'typeorm';
import type { AuthModuleOptions } from '../auth.options.js';
import { UserEntity } from './user.entity.js';
import { UsersService } from './users.service.js';

const service = () => new UsersService({} as Repository<UserEntity>, { adminEmails: [] } as unknown as AuthModuleOptions);
const row = (fields: Partial<UserEntity>): UserEntity => Object.assign(new UserEntity(), { id: 'u1', email: null, name: null, emailVerified: false }, fields);

describe('UsersService.callerFromUser (an MCP secret: the stored row speaks for the address)', () => {
  it('carries emailVerified with the address, true only when a token verified it', () => {
    expect(service().callerFromUser(row({ email: 'a@example.com', emailVerified: true }))).toMatchObject({ email: 'a@example.com', emailVerified: true });
    expect(service().callerFromUser(row({ email: 'a@example.com', emailVerified: false }))).toMatchObject({ email: 'a@example.com', emailVerified: false });
  });

  it('says nothing of verification without an address', () => {
    expect(service().callerFromUser(row({ emailVerified: true }))).not.toHaveProperty('emailVerified');
  });
});
