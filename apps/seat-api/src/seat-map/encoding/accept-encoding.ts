/** The content codings the seat map is kept in besides identity, in the order the server prefers them. */
export const MAP_ENCODINGS = ['br', 'gzip'] as const;
export type MapEncoding = (typeof MAP_ENCODINGS)[number];

/**
 * The coding to send for an Accept-Encoding header (RFC 9110 12.5.3): the highest q-value among br and
 * gzip (`*` stands for any coding not named), ties to br, which is smaller and, at the quality used here,
 * cheaper to make (see map-compression.ts). Undefined for identity: no header, neither coding acceptable,
 * or a malformed one. A dozen lines rather than a dependency: @fastify/accept-negotiator does the same,
 * but reaches this project only through @fastify/static.
 */
export function preferredEncoding(header: string | undefined): MapEncoding | undefined {
  if (!header) {
    return undefined;
  }
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...params] = part.toLowerCase().split(';');
    const name = token.trim();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (name && Number.isFinite(value)) {
      q.set(name, Math.max(0, Math.min(1, value)));
    }
  }
  let best: MapEncoding | undefined;
  let bestQ = 0;
  for (const coding of MAP_ENCODINGS) {
    const value = q.get(coding) ?? q.get('*') ?? 0;
    if (value > bestQ) {
      best = coding;
      bestQ = value;
    }
  }
  return best;
}
