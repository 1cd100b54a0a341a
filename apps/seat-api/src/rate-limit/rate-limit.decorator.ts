import { SetMetadata } from '@nestjs/common';

/** The limits a route can opt into; each is a named throttler configured in rate-limit.module.ts. */
export type RateLimitName = 'holdCreate' | 'seatMapRead' | 'streamOpen';

export const RATE_LIMIT = 'seat-api:rate-limit';

/**
 * Puts a route under one per-caller limit (per user when a token came with the request, else per client
 * address). Routes without it are not limited: the limits protect the expensive and abusable calls.
 */
export const RateLimited = (name: RateLimitName) => SetMetadata(RATE_LIMIT, name);
