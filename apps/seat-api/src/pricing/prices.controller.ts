import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { ApiPublicErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { EventPricesView } from './dto/event-prices.view';
import { PriceLists } from './price-lists.service';

/**
 * What the seat map shows beside the seats: each category's price range and the ticket types sold without
 * a code. Public, as the seat map is, and beside it rather than in it: the map's ETag is its change
 * version, which a new price list does not move. Its own ETag is the price-list version.
 */
@ApiTags('events')
@Controller({ path: 'events', version: '1' })
@Public()
export class PricesController {
  constructor(private readonly lists: PriceLists) {}

  @Get(':eventId/prices')
  @RateLimited('seatMapRead')
  @ApiOperation({
    summary: "The show's prices for the seat map: each category's price range and ticket types",
    description:
      'hidden ticket types (sold only with a promo code) are left out; ETag is the price-list version: If-None-Match answers 304 while it is current',
  })
  @ApiHeader({ name: 'If-None-Match', required: false })
  @ApiResponse({ status: 200, type: EventPricesView })
  @ApiResponse({ status: 304, description: 'the prices are as the ETag you sent' })
  @ApiPublicErrors(
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.PRICE_LIST_NOT_FOUND,
    ErrorCode.RATE_LIMITED,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async getPrices(
    @Param('eventId', eventIdPipe) eventId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EventPricesView | undefined> {
    const list = await this.lists.current(eventId);
    const etag = `W/"p${list.version}"`;
    void reply.header('etag', etag).header('cache-control', 'no-cache');
    if (ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag.slice(2))) {
      void reply.status(304);
      return undefined;
    }
    return EventPricesView.of(list);
  }
}
