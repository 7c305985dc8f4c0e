import { Column, Entity, PrimaryGeneratedColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Injectable, Module } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import { DatabaseModule } from '@app/database';
import { startApp, type RunningApp } from './support/test-app.js';

/** A lib of a test's own: one table, declared in its module only, the app untouched. */
@Entity('drift_probe_notes')
class NoteEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  text: string;
}

class CreateDriftProbeNotes1900000000000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE drift_probe_notes (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), text text NOT NULL)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE drift_probe_notes');
  }
}

@Injectable()
class NotesStore {
  constructor(@InjectRepository(NoteEntity) readonly notes: Repository<NoteEntity>) {}
}

@Module({
  imports: [DatabaseModule.forFeature({ entities: [NoteEntity], migrations: [CreateDriftProbeNotes1900000000000] })],
  providers: [NotesStore],
})
class NotesModule {}

let running: RunningApp;

beforeAll(async () => {
  running = await startApp({}, { imports: [NotesModule] });
}, 120_000);

afterAll(() => running?.close());

describe('the schema', () => {
  it('is exactly what the entities describe once every migration has run (nothing left for the schema builder)', async () => {
    const dataSource = running.app.get(DataSource);
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query)).toEqual([]);
  });

  it("takes a lib's table from its own module, with no edit to the app", async () => {
    const store = running.app.get(NotesStore);
    const saved = await store.notes.save(store.notes.create({ text: 'hello' }));
    expect(await store.notes.findOneBy({ id: saved.id })).toEqual({ id: saved.id, text: 'hello' });
  });
});
