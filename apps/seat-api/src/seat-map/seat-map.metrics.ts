import { counter, gauge } from '@app/observability';

/** The snapshots' memory is on /metrics as memory_cache_{bytes,entries,evictions_total}{cache="seat_map"}. */
export const refreshes = counter(
  'seat_map_refreshes_total',
  'Change-log reads that brought a seat-map snapshot up to date (shared by concurrent readers)',
);
export const builds = counter(
  'seat_map_builds_total',
  'Full seat-map snapshot builds by chunked HSCAN: cold snapshots, and logs trimmed past a snapshot',
);
export const countMismatches = counter(
  'seat_map_count_mismatches_total',
  "Refreshes whose snapshot disagreed with the event's kept held/booked counts in Redis",
);
export const eventPollers = gauge(
  'seat_map_event_pollers',
  'Events this instance follows for streams: one change-log reader each, however many clients listen',
);
export const openStreams = gauge('seat_map_open_streams', 'Seat-map event streams open on this instance');
export const refusedStreams = counter(
  'seat_map_refused_streams_total',
  'Streams refused with 503 because SEAT_MAP_MAX_STREAMS were open',
);
