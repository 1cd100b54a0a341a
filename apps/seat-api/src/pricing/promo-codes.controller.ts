import { Body, Controller, Get, HttpCode, Logger, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../auth/auth-user';
import { CurrentUser, Roles } from '../auth/auth.decorators';
import { Role } from '../auth/roles';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { RequestId } from '../common/request-id.decorator';
import { CreatePromoCodeDto } from './dto/promo-code.dto';
import { PromoCodesView, PromoCodeView } from './dto/promo-code.view';
import { PromoCodes } from './promo-codes.service';

/** A show's promo codes (admin): created and disabled as audited actions, listed and read with their uses. */
@ApiTags('pricing')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class PromoCodesController {
  private readonly logger = new Logger('Pricing');

  constructor(private readonly codes: PromoCodes) {}

  @Post(':eventId/promo-codes')
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'Create a promo code (admin, audited)',
    description: 'what it does never changes: to change a code, disable it and create another',
  })
  @ApiResponse({ status: 201, type: PromoCodeView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.PROMO_CODE_EXISTS,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async createPromoCode(
    @Param('eventId', eventIdPipe) eventId: string,
    @Body() dto: CreatePromoCodeDto,
    @CurrentUser() user: AuthUser,
    @RequestId() requestId: string,
  ): Promise<PromoCodeView> {
    const made = await this.codes.create(user, eventId, dto);
    this.logger.log({ msg: 'promo code created', requestId, eventId, code: made.code, actor: user.id });
    return PromoCodeView.of(made);
  }

  @Get(':eventId/promo-codes')
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: "The show's promo codes with their uses, oldest first (admin)",
    description: "uses: the bookings that carry each code, counted in each booking's own transaction",
  })
  @ApiResponse({ status: 200, type: PromoCodesView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.EVENT_NOT_FOUND, ErrorCode.DEPENDENCY_UNAVAILABLE)
  async listPromoCodes(@Param('eventId', eventIdPipe) eventId: string): Promise<PromoCodesView> {
    return { eventId, items: (await this.codes.list(eventId)).map((p) => PromoCodeView.of(p)) };
  }

  @Get(':eventId/promo-codes/:code')
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'One promo code, by its text in any letter case (admin)',
    description: 'what it does, its window, its uses and whether it is disabled',
  })
  @ApiResponse({ status: 200, type: PromoCodeView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.PROMO_CODE_NOT_FOUND,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async getPromoCode(
    @Param('eventId', eventIdPipe) eventId: string,
    @Param('code') code: string,
  ): Promise<PromoCodeView> {
    return PromoCodeView.of(await this.codes.read(eventId, code));
  }

  @Post(':eventId/promo-codes/:code/disable')
  @HttpCode(200)
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'Disable a promo code (admin, audited)',
    description:
      'no hold can take it any more and no booking redeem it (a hold carrying it is refused at confirm until it removes it); disabling it again changes nothing',
  })
  @ApiResponse({ status: 200, type: PromoCodeView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.PROMO_CODE_NOT_FOUND,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
  )
  async disablePromoCode(
    @Param('eventId', eventIdPipe) eventId: string,
    @Param('code') code: string,
    @CurrentUser() user: AuthUser,
    @RequestId() requestId: string,
  ): Promise<PromoCodeView> {
    const row = await this.codes.disable(user, eventId, code);
    this.logger.log({ msg: 'promo code disabled', requestId, eventId, code: row.code, actor: user.id });
    return PromoCodeView.of(row);
  }
}
