import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An offer hold is written on its entry before it is asked for (offer_ask: the freed change and the request
 * body, which with the entry make its Idempotency-Key) and cleared when its outcome is stored. An ask left
 * behind by a run that never stored it (a crash, a failure) is how the next run finds a hold no offer row
 * records: it makes it the entry's offer (waitlist_offers.recovered), or releases it when the entry left.
 * A recovered offer does not count as its change having been offered, so the change's other seats still are.
 */
export class WaitlistOfferAsks1764710000000 implements MigrationInterface {
  name = 'WaitlistOfferAsks1764710000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE waitlist_entries ADD COLUMN offer_ask jsonb`);
    await q.query(
      `CREATE INDEX waitlist_entries_asked_idx ON waitlist_entries (event_id) WHERE offer_ask IS NOT NULL`,
    );
    await q.query(`ALTER TABLE waitlist_offers ADD COLUMN recovered boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE waitlist_offers DROP COLUMN recovered`);
    await q.query(`DROP INDEX waitlist_entries_asked_idx`);
    await q.query(`ALTER TABLE waitlist_entries DROP COLUMN offer_ask`);
  }
}
