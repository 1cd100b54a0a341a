import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { USER_ID } from '../../../auth/jwt-auth.guard';
import { PageLimitQuery } from '../../../common/page.query';

/** Statuses a hold has as clients see it (HoldView): a hold being confirmed is ACTIVE. */
export const HOLD_VIEW_STATUSES = ['ACTIVE', 'RELEASED', 'EXPIRED', 'CONFIRMED'] as const;

/** `?limit&cursor&userId&status` of GET /v1/events/{eventId}/holds; any other parameter is refused. */
export class ListHoldsQuery extends PageLimitQuery {
  @ApiPropertyOptional({ description: "the previous page's nextCursor; none for the first page" })
  @IsOptional()
  @Matches(/^[0-9]{1,7}(\.[A-Za-z0-9_-]{11})?$/, { message: "cursor must be a page's nextCursor" })
  cursor?: string;

  @ApiPropertyOptional({
    description: "only this user's holds (the holder's user id)",
    pattern: USER_ID.source,
  })
  @IsOptional()
  @Matches(USER_ID, { message: 'userId must be 1-128 chars of letters, digits, . _ @ : -' })
  userId?: string;

  @ApiPropertyOptional({ enum: HOLD_VIEW_STATUSES, description: 'only holds in this status' })
  @IsOptional()
  @IsIn(HOLD_VIEW_STATUSES)
  status?: (typeof HOLD_VIEW_STATUSES)[number];
}
