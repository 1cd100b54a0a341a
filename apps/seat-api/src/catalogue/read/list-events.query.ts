import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { integerText } from '../../common/pipes/integer-text';

/** `GET /v1/events`: a page of events, upcoming (soonest first) or past (latest first); other parameters are refused. */
export class ListEventsQuery {
  @ApiPropertyOptional({
    enum: ['upcoming', 'past'],
    default: 'upcoming',
    description: 'upcoming: starting after now',
  })
  @IsIn(['upcoming', 'past'])
  when: 'upcoming' | 'past' = 'upcoming';

  @ApiPropertyOptional({ description: 'part of the name, any letter case (1-100 characters)' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  q?: string;

  @ApiPropertyOptional({ type: 'integer', default: 20, minimum: 1, maximum: 100, description: 'page size' })
  @Transform(integerText)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;

  @ApiPropertyOptional({ description: "the previous page's nextCursor" })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,200}$/, { message: 'cursor must be a nextCursor this API gave' })
  cursor?: string;
}
