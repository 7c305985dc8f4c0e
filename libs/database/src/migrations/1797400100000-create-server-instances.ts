import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The instances of a deployment, each reporting itself while it runs (`ServerInstanceEntity`). */
export class CreateServerInstances1797400100000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE server_instances (
        id uuid NOT NULL,
        hostname text NOT NULL,
        version text NOT NULL,
        started_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        CONSTRAINT server_instances_pkey PRIMARY KEY (id)
      )`);
    await queryRunner.query('CREATE INDEX server_instances_last_seen_idx ON server_instances (last_seen_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE server_instances');
  }
}
