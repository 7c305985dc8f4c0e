import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Controller, Get, Logger, NotFoundException, Post, type INestApplication } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { CommonModule } from '../common.module.js';
import { ConflictError, InvalidInputError } from '../errors.js';

class LeakyError extends Error {
  readonly password = 'hunter2';
}

@Controller('probe')
class ProbeController {
  @Get('conflict')
  conflict(): never {
    throw new ConflictError('That name is taken');
  }

  @Get('invalid')
  invalid(): never {
    throw new InvalidInputError('Invalid request', { name: 'name must be a string' });
  }

  @Get('missing')
  missing(): never {
    throw new NotFoundException('No such thing');
  }

  @Get('unexpected')
  unexpected(): never {
    throw new LeakyError('the disk is on fire');
  }

  @Post('echo')
  echo(): string {
    return 'ok';
  }
}

/** The one exception filter, registered by `CommonModule`, answering a real Fastify app over HTTP. */
describe('ErrorFilter', () => {
  let app: INestApplication;
  let base: string;
  const logged: unknown[][] = [];

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [CommonModule.forRoot({ signingSecret: 'x'.repeat(32) })],
      controllers: [ProbeController],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter({ bodyLimit: 16 }), { logger: false });
    jest.spyOn(Logger.prototype, 'error').mockImplementation((...args: unknown[]) => void logged.push(args));
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await app.close();
  });

  const get = async (path: string) => {
    const response = await fetch(`${base}/probe/${path}`);
    return { status: response.status, body: await response.json() };
  };

  it('answers a domain error with its status and message, and bad input with its fields', async () => {
    expect(await get('conflict')).toEqual({ status: 409, body: { statusCode: 409, error: 'Conflict', message: 'That name is taken' } });
    expect(await get('invalid')).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: 'Invalid request', fields: { name: 'name must be a string' } },
    });
  });

  it("answers Nest's own HTTP exceptions as Nest does", async () => {
    expect(await get('missing')).toEqual({ status: 404, body: { statusCode: 404, error: 'Not Found', message: 'No such thing' } });
  });

  it("answers the unexpected with a bare 500 and logs its message and stack, never the error's own fields", async () => {
    expect(await get('unexpected')).toEqual({ status: 500, body: { statusCode: 500, message: 'Internal Server Error' } });
    const line = JSON.stringify(logged);
    expect(line).toContain('the disk is on fire');
    expect(line).not.toContain('hunter2');
  });

  it("answers Fastify's own refusal (a body over the limit) as the caller's mistake, naming the limit", async () => {
    const response = await fetch(`${base}/probe/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(64) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ statusCode: 413, error: 'Payload Too Large', message: 'Request body is larger than 16 bytes (BODY_LIMIT_BYTES)' });
  });
});
