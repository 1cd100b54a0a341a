import { Check, Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EventEntity } from './event.entity';

/**
 * A general-admission area of an event: `capacity` places of one category, sold by quantity, not by name.
 * Part of the layout: never changed once created.
 */
@Entity({ name: 'event_areas' })
@Check('event_areas_capacity_check', 'capacity BETWEEN 1 AND 100000')
@Check('event_areas_blocked_check', 'blocked BETWEEN 0 AND capacity')
export class EventAreaEntity {
  /** Deleting an event deletes its areas. */
  @PrimaryColumn('uuid', { name: 'event_id', primaryKeyConstraintName: 'event_areas_pkey' })
  @ForeignKey(() => EventEntity, { name: 'event_areas_event_id_fkey', onDelete: 'CASCADE' })
  eventId!: string;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'event_areas_pkey' })
  name!: string;

  @Column('text')
  category!: string;

  @Column('integer')
  capacity!: number;

  /** Places box office took off sale (changed by audited staff actions alone). */
  @Column('integer', { default: 0 })
  blocked!: number;

  /** The area's place among the layout's sections as posted (0 first). */
  @Column('integer')
  position!: number;
}
