import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

export class ConfirmHoldDto {
  @ApiProperty({
    example: 'order-2027-000123',
    description: 'your order id; confirming again with it replays',
  })
  @Matches(/^[A-Za-z0-9._:-]{1,100}$/, { message: 'orderId must be 1-100 chars of letters, digits, . _ : -' })
  orderId!: string;
}
