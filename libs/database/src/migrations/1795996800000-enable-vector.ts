import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * pgvector, for embeddings stored later. The embedded database always has it; a PostgreSQL
 * server may lack the package (Debian 12 ships none for PostgreSQL 15), and the server should
 * still start there, so the extension is created only where it is available. A later migration
 * that adds vector columns must therefore run `CREATE EXTENSION IF NOT EXISTS vector` itself,
 * failing clearly on a server without it.
 */
export class EnableVector1795996800000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    const available = await queryRunner.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
    if (available.length === 0) {
      new Logger('Database').warn('pgvector is not installed on this PostgreSQL server: the vector extension was not created');
      return;
    }
    await queryRunner.query('CREATE EXTENSION IF NOT EXISTS vector');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP EXTENSION IF EXISTS vector');
  }
}
