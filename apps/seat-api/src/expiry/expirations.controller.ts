import { Controller, DefaultValuePipe, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HoldExpiryEntity } from '@app/database';
import { Roles } from '../auth/auth.decorators';
import { uuidPipe } from '../catalogue/catalogue.controller';
import { ApiError } from '../common/api-error';

/** Admin view of what expired in an event, as the expiry consumer recorded it from Kafka. */
@ApiTags('events')
@ApiBearerAuth()
@Controller('v1/events')
export class ExpirationsController {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  @Get(':eventId/expirations')
  @Roles('admin')
  @ApiOperation({ summary: 'Seat expirations of an event, newest first (admin)' })
  async list(
    @Param('eventId', uuidPipe) eventId: string,
    @Query('limit', new DefaultValuePipe(100), ParseIntPipe) limit: number,
    @Query('offset', new DefaultValuePipe(0), ParseIntPipe) offset: number,
  ) {
    if (limit < 1 || limit > 1000 || offset < 0) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'limit must be 1-1000 and offset >= 0', [
        { field: 'limit', message: '1-1000' },
      ]);
    }
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
      })),
    };
  }
}
