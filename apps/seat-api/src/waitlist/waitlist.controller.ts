import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { EventIdPipe, eventIdPipe } from '../common/pipes/event-id.pipe';
import { JoinWaitlistDto } from './dto/join-waitlist.dto';
import { JoinedWaitlistView, WaitlistEntryView } from './dto/waitlist-entry.view';
import { WaitlistService } from './waitlist.service';

/** Entry ids are `randomUUID()`s too: the same canonical spelling as event ids. */
const entryIdPipe = new EventIdPipe('entryId');

@ApiTags('waitlist')
@ApiBearerAuth()
@Controller({ version: '1' })
export class WaitlistController {
  constructor(private readonly waitlist: WaitlistService) {}

  @Post('events/:eventId/waitlist')
  @ApiOperation({
    summary:
      'Join the waiting list of a show: seats (or places of a standing area) freed later are offered in turn, as a hold of yours (one open entry per show)',
    description:
      "quantity 1-10 and an optional category, or an area of the event's layout instead; answers your entry id and place in line (each area has its own line)",
  })
  @ApiResponse({ status: 201, type: JoinedWaitlistView })
  @ApiErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.WAITLIST_ENTRY_EXISTS,
    ErrorCode.EVENT_CANCELLED,
    ErrorCode.SALES_CLOSED,
    ErrorCode.EVENT_ENDED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  )
  join(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: JoinWaitlistDto,
    @CurrentUser() user: AuthUser,
  ): Promise<JoinedWaitlistView> {
    return this.waitlist.join(user, eventId, dto);
  }

  @Get('waitlist/:entryId')
  @ApiOperation({
    summary: 'One of your waiting-list entries: its place, or the offer made to it',
    description:
      "WAITING with its position, OFFERED with holdId and offerExpiresAt, or ACCEPTED, LAPSED, LEFT; someone else's entry answers 404",
  })
  @ApiResponse({ status: 200, type: WaitlistEntryView })
  @ApiErrors(ErrorCode.WAITLIST_ENTRY_NOT_FOUND)
  get(
    @Param('entryId', entryIdPipe) entryId: string,
    @CurrentUser() user: AuthUser,
  ): Promise<WaitlistEntryView> {
    return this.waitlist.get(user, entryId);
  }

  @Delete('waitlist/:entryId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Leave the waiting list; an open offer is declined (its hold released)',
    description: 'safe to repeat; the seats or places of a declined offer go to the next entry in line',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(ErrorCode.WAITLIST_ENTRY_NOT_FOUND, ErrorCode.BUSY, ErrorCode.DEPENDENCY_UNAVAILABLE)
  leave(@Param('entryId', entryIdPipe) entryId: string, @CurrentUser() user: AuthUser): Promise<void> {
    return this.waitlist.leave(user, entryId);
  }
}
