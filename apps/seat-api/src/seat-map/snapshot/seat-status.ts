/** What the map shows for a seat; a snapshot keeps it as the index into STATUS (AVAILABLE = 0). */
export type SeatStatus = 'AVAILABLE' | 'HELD' | 'BOOKED';
export const STATUS: readonly SeatStatus[] = ['AVAILABLE', 'HELD', 'BOOKED'];
