import type { Observation } from '@medplum/fhirtypes';
import { Column, Entity, Index, PrimaryColumn, JoinColumn, ManyToOne } from 'typeorm';

/** A rendered part of a multi-part value, e.g. the systolic half of a blood pressure. */
export interface ObservationComponentColumn {
  code: string | null;
  display: string | null;
  value: string | null;
}

/**
 * A FHIR R4 Observation, kept whole in `resource`, with the columns queries need pulled out of it.
 * `clinical_at` is when it happened (effective[x], else issued, else when it was stored): the order people expect.
 */
@Entity('health_observations')
@Index('health_observations_subject_clinical_idx', ['subjectId', 'clinicalAt'])
@Index('health_observations_subject_code_clinical_idx', ['subjectId', 'code', 'clinicalAt'])
export class ObservationEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column('uuid', { name: 'subject_id' })
  subjectId: string;

  @ManyToOne('UserEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'subject_id', foreignKeyConstraintName: 'health_observations_subject_id_fkey' })
  subject?: unknown;

  @Column('jsonb')
  resource: Observation;

  @Column('text', { name: 'code_system', nullable: true })
  codeSystem: string | null;

  @Column('text', { nullable: true })
  code: string | null;

  @Column('text', { nullable: true })
  display: string | null;

  @Column('double precision', { name: 'value_numeric', nullable: true })
  valueNumeric: number | null;

  @Column('text', { name: 'value_unit', nullable: true })
  valueUnit: string | null;

  @Column('text', { name: 'value_text', nullable: true })
  valueText: string | null;

  @Column('jsonb', { nullable: true })
  components: ObservationComponentColumn[] | null;

  @Column('timestamptz', { name: 'effective_at', nullable: true })
  effectiveAt: Date | null;

  @Column('timestamptz', { name: 'issued_at', nullable: true })
  issuedAt: Date | null;

  @Column('timestamptz', { name: 'clinical_at' })
  clinicalAt: Date;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
