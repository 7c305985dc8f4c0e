import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { BackgroundWrites } from '@app/common';
import { startApp } from './support/test-app.js';

describe('background writes', () => {
  it('are flushed at shutdown, before the database closes', async () => {
    const running = await startApp();
    const db = running.app.get(DataSource);
    await db.query('CREATE TABLE late_writes (note text NOT NULL)');
    // Still under way when shutdown begins: it must reach the database all the same.
    running.app.get(BackgroundWrites).run('a late write', async () => {
      await sleep(300);
      await db.query(`INSERT INTO late_writes (note) VALUES ('kept')`);
    });
    let written: unknown;
    const originalDestroy = db.destroy.bind(db);
    // Reads the table at the last moment the database is open.
    db.destroy = async () => {
      written = await db.query('SELECT note FROM late_writes');
      return originalDestroy();
    };
    await running.close();
    expect(written).toEqual([{ note: 'kept' }]);
  }, 120_000);
});
