import { ApiProperty } from '@nestjs/swagger';
import { HoldView } from '../../hold.view';

export class HoldsPageView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: [HoldView] }) items!: HoldView[];
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'pass as ?cursor for the next page; null when there is none. A page may hold fewer than limit holds ' +
      '(each reads a bounded part of the event); a hold moved while paging may be listed twice, never skipped',
  })
  nextCursor!: string | null;
}
