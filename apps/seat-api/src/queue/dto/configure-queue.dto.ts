import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, Max, Min, ValidateIf } from 'class-validator';
import { QUEUE_ORDERS, type QueueOrder } from '@app/contracts';

/** Bounds of a queue's numbers (also in /docs-json). */
export const QUEUE_LIMITS = {
  admitPerMinute: { min: 1, max: 100_000 },
  maxActiveShoppers: { min: 1, max: 1_000_000 },
  passTtlSeconds: { min: 60, max: 3600, default: 600 },
  idleEntryTtlSeconds: { min: 10, max: 3600, default: 120 },
  letIn: { min: 1, max: 100_000 },
} as const;

/** May be left out, not sent as null (see CreateHoldDto.ttlSeconds). */
const unlessLeftOut = ValidateIf((_dto: unknown, value: unknown) => value !== undefined);

/** An event's on-sale queue: when it opens and starts, its order, pace and cap, and its time limits. */
export class ConfigureQueueDto {
  @ApiProperty({ format: 'date-time', description: 'when joining opens: in the future' })
  @IsISO8601({ strict: true })
  opensAt!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'when admission starts: not before opensAt, before the event starts',
  })
  @IsISO8601({ strict: true })
  salesStartAt!: string;

  @ApiPropertyOptional({
    enum: QUEUE_ORDERS,
    default: 'shuffle-then-fifo',
    description:
      'shuffle-then-fifo: everyone who joined before salesStartAt is put in a uniformly random order, then later joiners in arrival order; fifo: arrival order throughout',
  })
  @unlessLeftOut
  @IsIn(QUEUE_ORDERS)
  order?: QueueOrder;

  @ApiProperty({
    type: 'integer',
    minimum: QUEUE_LIMITS.admitPerMinute.min,
    maximum: QUEUE_LIMITS.admitPerMinute.max,
  })
  @IsInt()
  @Min(QUEUE_LIMITS.admitPerMinute.min)
  @Max(QUEUE_LIMITS.admitPerMinute.max)
  admitPerMinute!: number;

  @ApiProperty({
    type: 'integer',
    minimum: QUEUE_LIMITS.maxActiveShoppers.min,
    maximum: QUEUE_LIMITS.maxActiveShoppers.max,
    description:
      'admitted shoppers active at once at most (until their holds end; with no hold, until their pass runs out, or until idleEntryTtlSeconds after admission if nobody picked the pass up)',
  })
  @IsInt()
  @Min(QUEUE_LIMITS.maxActiveShoppers.min)
  @Max(QUEUE_LIMITS.maxActiveShoppers.max)
  maxActiveShoppers!: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: QUEUE_LIMITS.passTtlSeconds.min,
    maximum: QUEUE_LIMITS.passTtlSeconds.max,
    default: QUEUE_LIMITS.passTtlSeconds.default,
    description: 'how long an admission pass takes holds',
  })
  @unlessLeftOut
  @IsInt()
  @Min(QUEUE_LIMITS.passTtlSeconds.min)
  @Max(QUEUE_LIMITS.passTtlSeconds.max)
  passTtlSeconds?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: QUEUE_LIMITS.idleEntryTtlSeconds.min,
    maximum: QUEUE_LIMITS.idleEntryTtlSeconds.max,
    default: QUEUE_LIMITS.idleEntryTtlSeconds.default,
    description:
      'an entry whose client has not read it for this long is passed over when its turn comes; an admitted one not read within it after admission ends its turn',
  })
  @unlessLeftOut
  @IsInt()
  @Min(QUEUE_LIMITS.idleEntryTtlSeconds.min)
  @Max(QUEUE_LIMITS.idleEntryTtlSeconds.max)
  idleEntryTtlSeconds?: number;
}

/** A change of a running queue's pace or cap (at least one). */
export class PaceQueueDto extends PartialType(
  PickType(ConfigureQueueDto, ['admitPerMinute', 'maxActiveShoppers']),
) {}

/** Shoppers to let in now, beside the pace (still never past the cap). */
export class LetInDto {
  @ApiProperty({ type: 'integer', minimum: QUEUE_LIMITS.letIn.min, maximum: QUEUE_LIMITS.letIn.max })
  @IsInt()
  @Min(QUEUE_LIMITS.letIn.min)
  @Max(QUEUE_LIMITS.letIn.max)
  count!: number;
}
