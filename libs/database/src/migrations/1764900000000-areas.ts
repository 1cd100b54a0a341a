import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * General-admission areas. A layout section may be an area of places instead of rows of seats: its name,
 * category and capacity, in event_areas (the order posted in `position`). An event of areas alone has no
 * seats, so events.seat_count may be 0; every event still has something to sell (the catalogue checks it).
 *
 * A booking keeps the places it sold, per area ([{ area, quantity }], NULL for a booking of seats alone):
 * the hold store counts places, PostgreSQL keeps what was sold, from which an area's counts are healed
 * after Redis lost its data. An expiry of places (one SeatExpired per area and hold) is recorded with its
 * area and how many places went back; NULL for a seat's.
 */
export class Areas1764900000000 implements MigrationInterface {
  name = 'Areas1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT events_seat_count_check`);
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_seat_count_check CHECK (seat_count >= 0)`);
    await q.query(`
      CREATE TABLE event_areas (
        event_id uuid NOT NULL,
        name text NOT NULL,
        category text NOT NULL,
        capacity integer NOT NULL,
        position integer NOT NULL,
        CONSTRAINT event_areas_pkey PRIMARY KEY (event_id, name),
        CONSTRAINT event_areas_event_id_fkey FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
        CONSTRAINT event_areas_capacity_check CHECK (capacity BETWEEN 1 AND 100000)
      )`);
    await q.query(`ALTER TABLE bookings ADD COLUMN places jsonb`);
    await q.query(`ALTER TABLE hold_expiries ADD COLUMN area text`);
    await q.query(`ALTER TABLE hold_expiries ADD COLUMN quantity integer`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE hold_expiries DROP COLUMN quantity`);
    await q.query(`ALTER TABLE hold_expiries DROP COLUMN area`);
    await q.query(`ALTER TABLE bookings DROP COLUMN places`);
    await q.query(`DROP TABLE event_areas`);
    await q.query(`ALTER TABLE events DROP CONSTRAINT events_seat_count_check`);
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_seat_count_check CHECK (seat_count > 0)`);
  }
}
