import { counter, gauge, histogram } from '@app/observability';

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
  'Streams refused: SEAT_MAP_MAX_STREAMS open (max_streams), the stream memory budget used (memory), ' +
    'both 503; the caller has SEAT_MAP_MAX_STREAMS_PER_CALLER open (caller, 429)',
  ['reason'],
);
export const droppedStreams = counter(
  'seat_map_dropped_streams_total',
  'Streams ended by the server: not_draining = the client had taken nothing of what was written for ' +
    'SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS',
  ['reason'],
);
export const compressions = counter(
  'seat_map_compressions_total',
  'Whole seat maps compressed (once per version and coding at most): kept with the snapshot, stale (the ' +
    'version changed meanwhile: sent to the reads that waited, not kept) or failed',
  ['encoding', 'outcome'],
);
export const mapBodies = counter(
  'seat_map_bodies_total',
  'Seat-map 200 answers by content coding (identity also when no compressed body was ready or coming)',
  ['encoding'],
);
export const compressionSeconds = histogram(
  'seat_map_compression_seconds',
  'Time from the start of a whole-map compression to its result (thread pool queue included)',
  ['encoding'],
);
