import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';
import { USER_ID } from '../../../auth/jwt-auth.guard';
import { CreateHoldDto } from '../../dto/create-hold.dto';

/**
 * The body of a hold staff make for a customer: the customer's user id (their token's `sub`: they then
 * read and confirm the hold with their own token), and the hold's seats and ttl as a customer sends them.
 */
export class HoldOnBehalfDto extends CreateHoldDto {
  @ApiProperty({
    example: 'customer-42',
    description: "the customer's user id (the `sub` of their token): the hold's holder",
    pattern: USER_ID.source,
  })
  @Matches(USER_ID, { message: 'customerId must be 1-128 chars of letters, digits, . _ @ : -' })
  customerId!: string;
}
