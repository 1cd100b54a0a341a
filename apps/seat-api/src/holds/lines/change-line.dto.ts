import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { TICKET_TYPE_KEY, TICKET_TYPE_KEY_RULE } from '../../pricing/dto/price-list.dto';

export class ChangeLineDto {
  @ApiProperty({
    example: 'child',
    description: "a ticket type of the seat's category in the hold's price-list version",
  })
  @Matches(TICKET_TYPE_KEY, { message: `ticketType must be ${TICKET_TYPE_KEY_RULE}` })
  ticketType!: string;
}
