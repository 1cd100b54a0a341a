import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsInt,
  IsISO8601,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateNested,
} from 'class-validator';

const LABEL = /^[A-Za-z0-9_-]{1,12}$/;

/**
 * An instant after now (the server's clock): events are created to be sold before they start. One
 * created already started would show every seat AVAILABLE while its holds are refused EVENT_ENDED (past
 * start + retention), so it is refused here, naming the field, before anything is written.
 */
const InTheFuture = () =>
  ValidateBy({
    name: 'inTheFuture',
    validator: {
      // a string that is no date is IsISO8601's to refuse: one message, the right one
      validate: (value: unknown) => {
        const at = typeof value === 'string' ? Date.parse(value) : NaN;
        return Number.isNaN(at) || at > Date.now();
      },
      defaultMessage: () => 'startsAt must be in the future',
    },
  });

export class RowLayoutDto {
  @ApiProperty({ example: 'A' })
  @Matches(LABEL, { message: 'row must be 1-12 letters, digits, _ or -' })
  row!: string;

  @ApiProperty({ type: 'integer', example: 20, description: 'seats numbered 1..seats' })
  @IsInt()
  @Min(1)
  @Max(500)
  seats!: number;
}

export class SectionLayoutDto {
  @ApiProperty({ example: 'STALLS' })
  @Matches(LABEL, { message: 'name must be 1-12 letters, digits, _ or -' })
  name!: string;

  @ApiProperty({ example: 'standard' })
  @IsString()
  @Length(1, 40)
  category!: string;

  @ApiProperty({ type: [RowLayoutDto] })
  @ValidateNested({ each: true })
  @Type(() => RowLayoutDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  rows!: RowLayoutDto[];
}

/** An event and its seat layout. Seat ids are `<section>-<row>-<number>`, e.g. `STALLS-A-12`. */
export class CreateEventDto {
  @ApiProperty({ example: 'Hamlet, opening night' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({ format: 'date-time', example: '2027-03-01T19:30:00Z' })
  @IsISO8601({ strict: true })
  @InTheFuture()
  startsAt!: string;

  @ApiProperty({ type: [SectionLayoutDto] })
  @ValidateNested({ each: true })
  @Type(() => SectionLayoutDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  sections!: SectionLayoutDto[];
}
