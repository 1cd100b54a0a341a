import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HoldExpiryEntity } from '@app/database';
import { Roles } from '../auth/auth.decorators';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { ExpirationsPageView } from './dto/expirations-page.view';
import { ListExpirationsQuery } from './dto/list-expirations.query';

/** Admin view of what expired in an event, as the expiry consumer recorded it from Kafka. */
@ApiTags('events')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class ExpirationsController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Get(':eventId/expirations')
  @Roles('admin')
  @ApiOperation({
    summary: 'Seat expirations of an event, newest first (admin)',
    description: 'as the expiry consumer recorded them from seat.expired; ?limit= 1-1000 (100), ?offset=',
  })
  @ApiResponse({ status: 200, type: ExpirationsPageView })
  @ApiErrors(ErrorCode.FORBIDDEN)
  async listExpirations(
    @Param('eventId', eventIdPipe) eventId: string,
    // validated by the global pipe like a body: bounds, integers only, unknown parameters refused
    @Query() { limit, offset }: ListExpirationsQuery,
  ): Promise<ExpirationsPageView> {
    const [rows, total] = await this.db.getRepository(HoldExpiryEntity).findAndCount({
      where: { eventId },
      order: { expiredAt: 'DESC', seatId: 'ASC' },
      take: limit,
      skip: offset,
    });
    return {
      eventId,
      total,
      items: rows.map((r) => ({
        holdId: r.holdId,
        seatId: r.seatId,
        userId: r.userId,
        expiredAt: r.expiredAt.toISOString(),
        recordedAt: r.recordedAt.toISOString(),
        fencingToken: r.fencingToken,
        ...(r.area !== null ? { area: r.area, quantity: r.quantity! } : {}),
      })),
    };
  }
}
