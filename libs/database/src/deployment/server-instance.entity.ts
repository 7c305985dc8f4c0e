import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One running instance of the server, as it last reported itself (`ServerInstances`). */
@Entity('server_instances')
@Index('server_instances_last_seen_idx', ['lastSeenAt'])
export class ServerInstanceEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'server_instances_pkey' })
  id: string;

  @Column('text')
  hostname: string;

  /** The server's version (its package's). */
  @Column('text')
  version: string;

  @Column('timestamptz', { name: 'started_at' })
  startedAt: Date;

  @Column('timestamptz', { name: 'last_seen_at' })
  lastSeenAt: Date;
}
