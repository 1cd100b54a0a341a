import { Module } from '@nestjs/common';
import { WaitlistRepository } from '@app/database';
import { HoldsModule } from '../holds/holds.module';
import { WaitlistController } from './waitlist.controller';
import { WaitlistService } from './waitlist.service';

/** The waiting list's HTTP side: join, read, leave (the offers are made by apps/waitlist). */
@Module({
  imports: [HoldsModule], // leaving with an open offer releases its hold
  controllers: [WaitlistController],
  providers: [WaitlistService, WaitlistRepository],
})
export class WaitlistModule {}
