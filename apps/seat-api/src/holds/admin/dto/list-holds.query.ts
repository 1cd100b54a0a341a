import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { integerText } from '../../../common/pipes/integer-text';

/** Statuses a hold has as clients see it (HoldView): a hold being confirmed is ACTIVE. */
export const HOLD_VIEW_STATUSES = ['ACTIVE', 'RELEASED', 'EXPIRED', 'CONFIRMED'] as const;

/** `?limit&cursor&userId&status` of GET /v1/events/{eventId}/holds; any other parameter is refused. */
export class ListHoldsQuery {
  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'page size' })
  @Transform(integerText)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number = 100;

  @ApiPropertyOptional({ description: "the previous page's nextCursor; none for the first page" })
  @IsOptional()
  @Matches(/^[0-9]{1,7}(\.[A-Za-z0-9_-]{11})?$/, { message: "cursor must be a page's nextCursor" })
  cursor?: string;

  @ApiPropertyOptional({ description: "only this user's holds (the holder's user id)" })
  @IsOptional()
  @Matches(/^[A-Za-z0-9._@:-]{1,128}$/, {
    message: 'userId must be 1-128 chars of letters, digits, . _ @ : -',
  })
  userId?: string;

  @ApiPropertyOptional({ enum: HOLD_VIEW_STATUSES, description: 'only holds in this status' })
  @IsOptional()
  @IsIn(HOLD_VIEW_STATUSES)
  status?: (typeof HOLD_VIEW_STATUSES)[number];
}
