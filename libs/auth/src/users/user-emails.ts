import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { UserEntity } from './user.entity.js';

/**
 * Users' e-mail addresses by id, for the admin lists of rows another lib keeps by user id only
 * (the MCP tasks): the libs below auth cannot read the users table, so the app joins them here.
 */
@Injectable()
export class UserEmails {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  /** Each known id's address (null when the user gave none); an id no user has is left out. */
  async of(userIds: readonly string[]): Promise<Map<string, string | null>> {
    const unique = [...new Set(userIds)];
    if (unique.length === 0) return new Map();
    const users = await this.users.find({ where: { id: In(unique) }, select: { id: true, email: true } });
    return new Map(users.map((user) => [user.id, user.email]));
  }
}
