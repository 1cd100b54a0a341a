import { Body, Controller, Get, Logger, Param, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser, Roles } from '../auth/auth.decorators';
import { Role } from '../auth/roles';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RequestId } from '../common/request-id.decorator';
import { PriceListDto } from './dto/price-list.dto';
import { PriceListQuery } from './dto/price-list.query';
import { PriceListView } from './dto/price-list.view';
import { PriceLists } from './price-lists.service';

/** A show's price list: set by admins (each change a new version, audited), read by staff. */
@ApiTags('pricing')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class PricingController {
  private readonly logger = new Logger('Pricing');

  constructor(private readonly lists: PriceLists) {}

  @Put(':eventId/pricing')
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: "Set the show's price list (admin): a new version, audited",
    description:
      'every category of the layout, each with its ticket types (prices in minor units); holds made after this answers, on every instance, are priced under the new version; holds made before keep theirs',
  })
  @ApiResponse({ status: 200, type: PriceListView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.EVENT_CANCELLED,
    ErrorCode.EVENT_ENDED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.REPLICAS_UNAVAILABLE,
  )
  async setPriceList(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: PriceListDto,
    @CurrentUser() user: AuthUser,
    @RequestId() requestId: string,
  ): Promise<PriceListView> {
    const list = await this.lists.set(user, eventId, dto);
    this.logger.log({ msg: 'price list set', requestId, eventId, version: list.version, actor: user.id });
    return PriceListView.of(list);
  }

  @Get(':eventId/pricing')
  @Roles(Role.AGENT)
  @ApiOperation({
    summary: "The show's price list, hidden ticket types included (agent, admin)",
    description: '?version= reads an earlier version (a hold keeps the version it was made under)',
  })
  @ApiResponse({ status: 200, type: PriceListView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.PRICE_LIST_NOT_FOUND,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async getPriceList(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() { version }: PriceListQuery,
  ): Promise<PriceListView> {
    return PriceListView.of(await this.lists.read(eventId, version));
  }
}
