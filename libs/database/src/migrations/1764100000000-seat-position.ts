import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A seat's place in the layout the admin posted (sections, then rows, then seats by number), so the seat
 * map lists the layout as it was posted rather than by seat id (`A-1, A-10, A-2`, the second section
 * before the first). Seats stored before this column have lost their posted order: they are numbered by
 * section and row name, then seat number, which at least keeps each row's seats in numeric order.
 */
export class SeatPosition1764100000000 implements MigrationInterface {
  name = 'SeatPosition1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE seats ADD COLUMN position integer`);
    await q.query(`
      UPDATE seats s SET position = o.n - 1
        FROM (SELECT event_id, seat_id,
                     ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY section, row, number) AS n
                FROM seats) o
       WHERE s.event_id = o.event_id AND s.seat_id = o.seat_id`);
    await q.query(`ALTER TABLE seats ALTER COLUMN position SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE seats DROP COLUMN position`);
  }
}
