import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../../auth/auth-user';
import { CurrentUser, Roles } from '../../auth/auth.decorators';
import { Role } from '../../auth/roles';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { eventIdPipe } from '../../common/pipes/event-id.pipe';
import {
  BlockedSeatsView,
  PlaceBlockDto,
  PlaceBlockView,
  SeatBlockDto,
  SeatBlockView,
} from './dto/seat-block.dto';
import { SeatBlocksService } from './seat-blocks.service';

const CHANGE_ERRORS = [
  ErrorCode.FORBIDDEN,
  ErrorCode.EVENT_NOT_FOUND,
  ErrorCode.SEAT_NOT_FOUND,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  ErrorCode.BUSY,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.AUDIT_UNAVAILABLE,
  ErrorCode.REPLICAS_UNAVAILABLE,
];

/** Seats off sale (production kills, house seats): admins block and unblock them, agents read them. */
@ApiTags('staff')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class SeatBlocksController {
  constructor(private readonly blocks: SeatBlocksService) {}

  @Get(':eventId/seats/blocks')
  @Roles(Role.AGENT)
  @ApiOperation({
    summary: "An event's blocked seats, with reason and who blocked them (agent, admin)",
    description: 'the public seat map shows these seats BOOKED and never says why',
  })
  @ApiResponse({ status: 200, type: BlockedSeatsView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.EVENT_NOT_FOUND)
  list(@Param('eventId', eventIdPipe) eventId: string): Promise<BlockedSeatsView> {
    return this.blocks.list(eventId);
  }

  @Post(':eventId/seats/block')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary:
      'Take seats off sale, all or none, with a reason: never held or booked, shown not available; a held or booked seat is refused (admin)',
    description: 'release a held seat first; the block and its audit entry are made in one step',
  })
  @ApiResponse({ status: 200, type: SeatBlockView })
  @ApiErrors(ErrorCode.SEATS_UNAVAILABLE, ...CHANGE_ERRORS)
  block(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: SeatBlockDto,
    @CurrentUser() user: AuthUser,
  ): Promise<SeatBlockView> {
    return this.blocks.block(user, eventId, dto.seatIds, dto.reason);
  }

  @Post(':eventId/places/block')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary:
      'Take places of a general-admission area off sale, with a reason: its sellable capacity goes down (admin)',
    description:
      'free places only (409 SOLD_OUT naming what is free otherwise); the block and its audit entry are made in one step',
  })
  @ApiResponse({ status: 200, type: PlaceBlockView })
  @ApiErrors(ErrorCode.SOLD_OUT, ErrorCode.AREA_NOT_FOUND, ...CHANGE_ERRORS)
  blockPlaces(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: PlaceBlockDto,
    @CurrentUser() user: AuthUser,
  ): Promise<PlaceBlockView> {
    return this.blocks.blockPlaces(user, eventId, dto.area, dto.quantity, dto.reason, true);
  }

  @Post(':eventId/places/unblock')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'Put blocked places of a general-admission area back on sale, with a reason (admin)',
    description: 'more than are blocked answers 409 PLACES_NOT_BLOCKED and nothing changes',
  })
  @ApiResponse({ status: 200, type: PlaceBlockView })
  @ApiErrors(ErrorCode.PLACES_NOT_BLOCKED, ErrorCode.AREA_NOT_FOUND, ...CHANGE_ERRORS)
  unblockPlaces(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: PlaceBlockDto,
    @CurrentUser() user: AuthUser,
  ): Promise<PlaceBlockView> {
    return this.blocks.blockPlaces(user, eventId, dto.area, dto.quantity, dto.reason, false);
  }

  @Post(':eventId/seats/unblock')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'Put blocked seats back on sale, all or none, with a reason (admin)',
    description:
      'a seat that is not blocked answers 409 SEAT_NOT_BLOCKED and nothing changes; the seats freed are published as SeatsUnblocked, so the waiting list can offer them',
  })
  @ApiResponse({ status: 200, type: SeatBlockView })
  @ApiErrors(ErrorCode.SEAT_NOT_BLOCKED, ...CHANGE_ERRORS)
  unblock(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: SeatBlockDto,
    @CurrentUser() user: AuthUser,
  ): Promise<SeatBlockView> {
    return this.blocks.unblock(user, eventId, dto.seatIds, dto.reason);
  }
}
