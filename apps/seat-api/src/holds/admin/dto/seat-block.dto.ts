import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, Matches } from 'class-validator';
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
