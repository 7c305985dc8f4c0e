import { Column, Entity, PrimaryGeneratedColumn, JoinColumn, ManyToOne } from 'typeorm';

/** A group of people who look after one another; who may do what lives on its members. */
@Entity('care_circles')
export class CareCircleEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  /** The user who created the circle (its first owner); ownership itself is a member's role, so the circle outlives them. */
  @Column('uuid', { name: 'created_by', nullable: true })
  createdBy: string | null;

  @ManyToOne('UserEntity', { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'care_circles_created_by_fkey' })
  creator?: unknown;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt: Date;
}
