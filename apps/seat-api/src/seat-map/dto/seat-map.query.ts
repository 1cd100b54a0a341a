import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';

/** As section names are made (catalogue/dto/create-event.dto.ts): 1-12 letters, digits, _ or -. */
const SECTION = /^[A-Za-z0-9_-]{1,12}$/;

/**
 * An event id as the stream sends it in `id:`: `<epoch>:<version>` (the change log's epoch, see
 * hold-store/seat-change-log.ts, and the version in it), or the bare version of a log without an epoch.
 */
export const VERSION = /^(?:([0-9]{1,20}):)?([0-9]{1,15})$/;

/** The epoch ('' when none was sent) and version of a Last-Event-ID that matched VERSION. */
export function parseEventId(id: string): { epoch: string; version: number } {
  const [, epoch, version] = VERSION.exec(id)!;
  return { epoch: epoch ?? '', version: Number(version) };
}

/** `?section` of GET /v1/events/{eventId}/seats; any other parameter is refused. */
export class SeatMapQuery {
  @ApiPropertyOptional({ example: 'STALLS', description: "only this section's seats and counts" })
  @IsOptional()
  @Matches(SECTION, { message: 'section must be 1-12 letters, digits, _ or -' })
  section?: string;
}

/** `?lastEventId` of the stream: for clients behind proxies that drop the Last-Event-ID header. */
export class SeatStreamQuery {
  @ApiPropertyOptional({
    example: '1795708230123456:42',
    description: 'resume after this event id (as the Last-Event-ID header)',
  })
  @IsOptional()
  @Matches(VERSION, { message: 'lastEventId must be an event id the stream sent' })
  lastEventId?: string;
}
