import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';

/** As section names are made (catalogue/dto/create-event.dto.ts): 1-12 letters, digits, _ or -. */
const SECTION = /^[A-Za-z0-9_-]{1,12}$/;

/** A version as the stream sends it in `id:`: a whole number. */
export const VERSION = /^[0-9]{1,15}$/;

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
    example: '42',
    description: 'resume after this version (as the Last-Event-ID header)',
  })
  @IsOptional()
  @Matches(VERSION, { message: 'lastEventId must be a version: a whole number' })
  lastEventId?: string;
}
