import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, Max, Min, ValidateIf } from 'class-validator';
import {
  ACCESSIBLE_SEATS_FOR_ALL,
  type AccessibleSeatsForAll,
  ORPHAN_RULES,
  type OrphanRule,
} from '@app/database';

const OWN = "the event's own value; null or left out: the deployment's (HOLD_* environment)";

/**
 * An event's own hold limits and seat rules, at creation (`settings`) or in a change (PATCH): a limit's
 * number sets the event's own value, null gives it the deployment's again; a rule is one of its values
 * (never null); a field left out stays as it is. A change applies to holds made after it; a hold keeps the
 * terms it was made under (its extension cap, ttl cap and lifetime, and the seats it took).
 */
export class EventSettingsDto {
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 300,
    description: `hold ttl when the hold names none; ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  defaultHoldTtlSeconds?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 900,
    description: `longest ttl a hold or an extension may ask; ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(86400)
  maxHoldTtlSeconds?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 10,
    description: `seats in one hold; ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1000)
  maxSeatsPerHold?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 50,
    description: `seats one user may hold at once in the event (a box office's account: more); ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10000)
  maxSeatsPerUser?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 3,
    description: `extensions per hold (0: none); ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(100)
  maxExtensions?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    example: 1800,
    description: `longest a hold may live, extensions included; ${OWN}`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(7 * 86400)
  maxHoldLifetimeSeconds?: number | null;

  @ApiPropertyOptional({
    enum: ORPHAN_RULES,
    description:
      "no-single-gaps: a hold by seat ids may not leave one free seat alone between taken seats or at a row's end (409 SEATS_UNAVAILABLE, reason ORPHAN_SEAT), unless the row leaves no other way; none: no such rule. At creation, left out: the deployment's (EVENT_ORPHAN_RULE, default no-single-gaps); in a change, left out: as it is",
  })
  // may be left out, not sent as null
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsIn(ORPHAN_RULES)
  orphanRule?: OrphanRule;

  @ApiPropertyOptional({
    enum: ACCESSIBLE_SEATS_FOR_ALL,
    description:
      'Wheelchair places and companion seats in best-available holds that do not ask for accessible seats: never, or when-others-gone (only once no block of other seats fits the request, so they are not left unsold). At creation, left out: when-others-gone; in a change, left out: as it is',
  })
  // may be left out, not sent as null
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsIn(ACCESSIBLE_SEATS_FOR_ALL)
  accessibleSeatsForAll?: AccessibleSeatsForAll;
}

/** The settings an event is created with: its own limits and rules, and whether its sales start open (the default). */
export class CreateEventSettingsDto extends EventSettingsDto {
  @ApiPropertyOptional({
    enum: ['OPEN', 'CLOSED'],
    default: 'OPEN',
    description: 'CLOSED: opened later by an admin',
  })
  @IsOptional()
  @IsIn(['OPEN', 'CLOSED'])
  sales?: 'OPEN' | 'CLOSED' | null;
}
