import { layoutRows, LayoutSeat } from './allocation-rows';

const seat = (section: string, row: string, number: number, more: Partial<LayoutSeat> = {}): LayoutSeat => ({
  section,
  row,
  number,
  category: section === 'BOX' ? 'premium' : 'standard',
  ...more,
});

describe('layoutRows', () => {
  it('ranks front rows first across sections, then by section, as posted', () => {
    const rows = layoutRows([
      seat('STALLS', 'A', 1),
      seat('STALLS', 'A', 2),
      seat('STALLS', 'B', 1),
      seat('BOX', 'A', 1),
    ]);
    const byRank = [...rows].sort((a, b) => a.rank - b.rank).map((r) => r.rowKey);
    expect(byRank).toEqual(['STALLS-A', 'BOX-A', 'STALLS-B']);
    expect(rows.find((r) => r.rowKey === 'STALLS-A')).toMatchObject({
      seats: 2,
      category: 'standard',
      access: '',
    });
  });

  it("puts the layout's own ranks first, lowest first", () => {
    const rows = layoutRows([
      seat('S', 'A', 1),
      seat('S', 'B', 1, { rowRank: 5 }),
      seat('S', 'C', 1, { rowRank: 1 }),
    ]);
    expect([...rows].sort((a, b) => a.rank - b.rank).map((r) => r.rowKey)).toEqual(['S-C', 'S-B', 'S-A']);
  });

  it('marks wheelchair places and companion seats by seat number', () => {
    const [row] = layoutRows([
      seat('S', 'A', 1, { access: 'accessible' }),
      seat('S', 'A', 2, { access: 'companion' }),
      seat('S', 'A', 3),
      seat('S', 'A', 4, { access: 'accessible' }),
    ]);
    expect(row.access).toBe('ac.a');
  });
});
