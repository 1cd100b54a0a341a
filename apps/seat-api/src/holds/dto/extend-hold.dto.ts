import { ApiProperty } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';

export class ExtendHoldDto {
  @ApiProperty({ type: 'integer', example: 300, description: 'new expiry = now + ttlSeconds' })
  @IsInt()
  @Min(1)
  @Max(86400)
  ttlSeconds!: number;
}
