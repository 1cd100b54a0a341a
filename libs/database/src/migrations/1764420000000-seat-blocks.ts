import { MigrationInterface, QueryRunner } from 'typeorm';

/** Seats box-office staff took off sale (see SeatBlockEntity): the record the seat store is repaired from. */
export class SeatBlocks1764420000000 implements MigrationInterface {
  name = 'SeatBlocks1764420000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE seat_blocks (
        event_id uuid NOT NULL,
        seat_id text NOT NULL,
        reason text NOT NULL,
        blocked_by text NOT NULL,
        blocked_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT seat_blocks_pkey PRIMARY KEY (event_id, seat_id),
        CONSTRAINT seat_blocks_event_id_seat_id_fkey FOREIGN KEY (event_id, seat_id)
          REFERENCES seats (event_id, seat_id) ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE seat_blocks`);
  }
}
