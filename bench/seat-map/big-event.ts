/**
 * The seat-map benches' big show: `seats` seats in sections of at most 250 rows of 100, ids
 * `<section>-R<row>-<n>`; the first section's seats are 'premium', the others 'standard'.
 */
import { BenchService, signBenchToken } from '../support/service';

export async function createBigEvent(
  svc: BenchService,
  seats: number,
): Promise<{ eventId: string; ids: string[] }> {
  const rows = Math.ceil(seats / 100);
  const sections = Array.from({ length: Math.ceil(rows / 250) }, (_, s) => ({
    name: `S${s + 1}`,
    category: s === 0 ? 'premium' : 'standard',
    rows: Array.from({ length: Math.min(250, rows - s * 250) }, (_, r) => ({ row: `R${r + 1}`, seats: 100 })),
  }));
  const res = await fetch(`${svc.base}/v1/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await signBenchToken('bench-admin', ['admin'])}`,
    },
    body: JSON.stringify({ name: 'Big show', startsAt: '2030-01-01T20:00:00Z', sections }),
  });
  if (res.status !== 201) {
    throw new Error(`create event: ${res.status} ${await res.text()}`);
  }
  const ids = sections.flatMap((s) =>
    s.rows.flatMap((r) => Array.from({ length: 100 }, (_, n) => `${s.name}-${r.row}-${n + 1}`)),
  );
  return { eventId: ((await res.json()) as { eventId: string }).eventId, ids };
}
