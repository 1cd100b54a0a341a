import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a layout may say of a row and its seats beyond their names: the row's rank (best-available holds
 * search rows by it, lowest first; NULL: the default order, front rows first) and whether a seat is a
 * wheelchair place or a companion seat beside one (NULL: an ordinary seat). Kept per seat, like the
 * section and row, since the catalogue has no table of rows.
 */
export class SeatAccessRank1764610000000 implements MigrationInterface {
  name = 'SeatAccessRank1764610000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE seats
        ADD COLUMN row_rank integer,
        ADD COLUMN access text,
        ADD CONSTRAINT seats_access_check CHECK (access IN ('accessible', 'companion'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE seats DROP CONSTRAINT seats_access_check, DROP COLUMN row_rank, DROP COLUMN access`,
    );
  }
}
