import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsInt, Matches, Max, Min } from 'class-validator';
import { SEAT_ID } from '../../dto/create-hold.dto';
import { StaffReasonDto } from './staff-reason.dto';

/** Seats one block or unblock takes at most (a section's kills; larger changes are several calls). */
const MAX_SEATS = 1000;

/** The body of a block or unblock: the seats, all or none, and why (kept in the audit; never public). */
export class SeatBlockDto extends StaffReasonDto {
  @ApiProperty({
    example: ['STALLS-A-1', 'STALLS-A-2'],
    minItems: 1,
    maxItems: MAX_SEATS,
    uniqueItems: true,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SEATS)
  @ArrayUnique({ message: 'seatIds must not repeat a seat' })
  @Matches(SEAT_ID, { each: true, message: 'each seat id must be 1-32 chars of letters, digits, . _ -' })
  seatIds!: string[];
}

/** The body of a block or unblock of places of a general-admission area: how many, and why. */
export class PlaceBlockDto extends StaffReasonDto {
  @ApiProperty({ example: 'FLOOR', description: "a general-admission area of the event's layout" })
  @Matches(/^[A-Za-z0-9_-]{1,12}$/, { message: 'area must be 1-12 letters, digits, _ or -' })
  area!: string;

  @ApiProperty({ type: 'integer', example: 20, minimum: 1, maximum: 100_000 })
  @IsInt()
  @Min(1)
  @Max(100_000)
  quantity!: number;
}

/** What a block or unblock of places did: the area's places now. */
export class PlaceBlockView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ example: 'FLOOR' }) area!: string;
  @ApiProperty({ description: 'places blocked or unblocked by this call' }) quantity!: number;
  @ApiProperty({ enum: ['BLOCKED', 'AVAILABLE'], description: 'what those places are now' })
  status!: 'BLOCKED' | 'AVAILABLE';
}

/** What a block or unblock did. */
export class SeatBlockView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: [String] }) seatIds!: string[];
  @ApiProperty({
    enum: ['BLOCKED', 'AVAILABLE'],
    description: 'what the seats are now: BLOCKED (the public map shows them BOOKED, never why) or AVAILABLE',
  })
  status!: 'BLOCKED' | 'AVAILABLE';
}

/** A blocked seat as staff see it. */
export class BlockedSeatView {
  @ApiProperty() seatId!: string;
  @ApiProperty() reason!: string;
  @ApiProperty({ description: 'the staff member who blocked it' }) blockedBy!: string;
  @ApiProperty({ format: 'date-time' }) blockedAt!: string;
}

export class BlockedSeatsView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: [BlockedSeatView], description: 'by seat id' }) items!: BlockedSeatView[];
}
