import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit of staff actions (admin and agent): who did what to which target of an event, why and when.
 * An entry is written PENDING before its change is made and DONE once it is known to have happened; a
 * PENDING entry whose change did not happen is deleted, so only DONE entries are ever shown (see
 * apps/seat-api/src/audit/audited-actions.ts). settle_after: until then the request that wrote the entry
 * may still be making its change, and nobody else decides it.
 */
export class AuditEntries1764300000000 implements MigrationInterface {
  name = 'AuditEntries1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_entries (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        reason text,
        detail jsonb,
        status text NOT NULL CHECK (status IN ('PENDING', 'DONE')),
        created_at timestamptz NOT NULL DEFAULT now(),
        settle_after timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX audit_entries_event_idx ON audit_entries (event_id, created_at)`);
    await q.query(
      `CREATE INDEX audit_entries_pending_idx ON audit_entries (event_id) WHERE status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_entries`);
  }
}
