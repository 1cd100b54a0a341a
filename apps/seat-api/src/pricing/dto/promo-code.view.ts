import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PromoCodeEntity, PromoKind } from '@app/database';
import { PromoScopeDto } from './promo-code.dto';

export class PromoCodeView {
  @ApiProperty({ format: 'uuid' }) promoCodeId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: 'upper-case' }) code!: string;
  @ApiProperty({ enum: ['percent', 'amount', 'fixed-price'] }) kind!: PromoKind;
  @ApiProperty() value!: number;
  @ApiPropertyOptional({ type: () => PromoScopeDto }) appliesTo?: PromoScopeDto;
  @ApiPropertyOptional() maxUses?: number;
  @ApiProperty({ description: 'bookings that carry it' }) uses!: number;
  @ApiPropertyOptional({ format: 'date-time' }) validFrom?: string;
  @ApiPropertyOptional({ format: 'date-time' }) validUntil?: string;
  @ApiProperty({ type: [String] }) unlocksTicketTypes!: string[];
  @ApiPropertyOptional({ format: 'date-time', description: 'when it was disabled' }) disabledAt?: string;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;

  static of(p: PromoCodeEntity): PromoCodeView {
    return {
      promoCodeId: p.id,
      eventId: p.eventId,
      code: p.code,
      kind: p.kind,
      value: p.value,
      ...(p.appliesTo ? { appliesTo: p.appliesTo } : {}),
      ...(p.maxUses === null ? {} : { maxUses: p.maxUses }),
      uses: p.uses,
      ...(p.validFrom ? { validFrom: p.validFrom.toISOString() } : {}),
      ...(p.validUntil ? { validUntil: p.validUntil.toISOString() } : {}),
      unlocksTicketTypes: p.unlocks,
      ...(p.disabledAt ? { disabledAt: p.disabledAt.toISOString() } : {}),
      createdBy: p.createdBy,
      createdAt: p.createdAt.toISOString(),
    };
  }
}

export class PromoCodesView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: [PromoCodeView], description: 'oldest first' }) items!: PromoCodeView[];
}
