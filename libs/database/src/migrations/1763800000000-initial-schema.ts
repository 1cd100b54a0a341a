import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE events (
        id uuid PRIMARY KEY,
        name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        starts_at timestamptz NOT NULL,
        seat_count integer NOT NULL CHECK (seat_count > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE seats (
        event_id uuid NOT NULL REFERENCES events(id) ON DELETE CASCADE,
        seat_id text NOT NULL,
        section text NOT NULL,
        row text NOT NULL,
        number integer NOT NULL,
        category text NOT NULL,
        PRIMARY KEY (event_id, seat_id)
      )`);
    await q.query(`
      CREATE TABLE bookings (
        id uuid PRIMARY KEY,
        hold_id text NOT NULL UNIQUE,
        order_id text,
        event_id uuid NOT NULL REFERENCES events(id),
        user_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('CONFIRMED', 'ABANDONED')),
        fencing_token bigint NOT NULL,
        seat_ids text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (status = 'ABANDONED' OR order_id IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX bookings_event_idx ON bookings (event_id)`);
    await q.query(`
      CREATE TABLE booking_seats (
        event_id uuid NOT NULL,
        seat_id text NOT NULL,
        booking_id uuid NOT NULL REFERENCES bookings(id) ON DELETE CASCADE,
        PRIMARY KEY (event_id, seat_id),
        FOREIGN KEY (event_id, seat_id) REFERENCES seats(event_id, seat_id)
      )`);
    await q.query(`
      CREATE TABLE hold_expiries (
        event_message_id text PRIMARY KEY,
        hold_id text NOT NULL,
        event_id uuid NOT NULL,
        seat_id text NOT NULL,
        user_id text NOT NULL,
        expired_at timestamptz NOT NULL,
        fencing_token bigint NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX hold_expiries_hold_idx ON hold_expiries (hold_id)`);
    await q.query(`CREATE INDEX hold_expiries_event_idx ON hold_expiries (event_id, expired_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE hold_expiries`);
    await q.query(`DROP TABLE booking_seats`);
    await q.query(`DROP TABLE bookings`);
    await q.query(`DROP TABLE seats`);
    await q.query(`DROP TABLE events`);
  }
}
