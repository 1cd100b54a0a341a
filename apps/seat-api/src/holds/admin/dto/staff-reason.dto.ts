import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length, Matches } from 'class-validator';

/** The body of a staff action that must say why (force release, cancel, block): kept in its audit entry. */
export class StaffReasonDto {
  @ApiProperty({ example: 'customer called: card declined twice', minLength: 1, maxLength: 500 })
  @IsString()
  @Length(1, 500)
  @Matches(/\S/, { message: 'reason must not be blank' })
  reason!: string;
}
