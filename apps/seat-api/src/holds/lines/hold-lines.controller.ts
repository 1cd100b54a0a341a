import { Body, Controller, Delete, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../../auth/auth-user';
import { CurrentUser } from '../../auth/auth.decorators';
import { ApiErrors } from '../../common/api-errors.decorator';
import { ErrorCode } from '../../common/errors/error-code';
import { ApplyPromoCodeDto } from '../../pricing/dto/promo-code.dto';
import { HoldView } from '../hold.view';
import { ChangeLineDto } from './change-line.dto';
import { HoldLines } from './hold-lines.service';

/** The refusals of every change of what a hold is sold as. */
const LINE_ERRORS = [
  ErrorCode.HOLD_NOT_FOUND,
  ErrorCode.HOLD_NOT_ACTIVE,
  ErrorCode.HOLD_NOT_PRICED,
  ErrorCode.TICKET_TYPE_LOCKED,
  ErrorCode.TICKET_TYPE_LIMIT_EXCEEDED,
  ErrorCode.BUSY,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.REPLICAS_UNAVAILABLE,
];

/** A priced hold's lines and promo code, changed by its holder while it is ACTIVE; re-priced each time. */
@ApiTags('holds')
@ApiBearerAuth()
@Controller({ path: 'holds', version: '1' })
export class HoldLinesController {
  constructor(private readonly lines: HoldLines) {}

  @Patch(':holdId/lines/:seatId')
  @ApiOperation({
    summary: 'Sell one seat of your hold as another ticket type',
    description:
      "priced under the hold's own price-list version; a hidden type needs the hold's promo code to unlock it (422 TICKET_TYPE_LOCKED)",
  })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(
    ...LINE_ERRORS,
    ErrorCode.SEAT_NOT_FOUND,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  )
  changeLine(
    @Param('holdId') holdId: string,
    @Param('seatId') seatId: string,
    @Body() dto: ChangeLineDto,
    @CurrentUser() user: AuthUser,
  ): Promise<HoldView> {
    return this.lines.changeTicketType(user, holdId, seatId, dto.ticketType);
  }

  @Post(':holdId/promo-code')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Apply a promo code to your hold (one per hold: it replaces the one it had)',
    description:
      '422 PROMO_CODE_REFUSED with errors[0].reason UNKNOWN, DISABLED, NOT_YET_VALID, EXPIRED, USED_UP or NOT_APPLICABLE, and nothing changed; the code is counted at confirm',
  })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(
    ...LINE_ERRORS,
    ErrorCode.PROMO_CODE_REFUSED,
    ErrorCode.PAYLOAD_TOO_LARGE,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  )
  applyPromoCode(
    @Param('holdId') holdId: string,
    @Body() dto: ApplyPromoCodeDto,
    @CurrentUser() user: AuthUser,
  ): Promise<HoldView> {
    return this.lines.setPromoCode(user, holdId, dto.code);
  }

  @Delete(':holdId/promo-code')
  @HttpCode(200)
  @ApiOperation({
    summary: "Remove your hold's promo code: its lines cost their list prices again",
    description: "a line of a hidden type the code unlocked goes back to its category's default type",
  })
  @ApiResponse({ status: 200, type: HoldView })
  @ApiErrors(...LINE_ERRORS)
  removePromoCode(@Param('holdId') holdId: string, @CurrentUser() user: AuthUser): Promise<HoldView> {
    return this.lines.setPromoCode(user, holdId, null);
  }
}
