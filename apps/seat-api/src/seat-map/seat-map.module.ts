import { Module } from '@nestjs/common';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { HoldStoreModule } from '../hold-store';
import { SeatMapCompression } from './encoding/map-compression';
import { SeatMapStreams } from './live/seat-map-streams';
import { SeatMapController } from './seat-map.controller';
import { SeatMapService } from './seat-map.service';
import { SeatMapSnapshots } from './seat-map.snapshots';

/**
 * The seat map (GET /v1/events/{eventId}/seats) and its live stream (/seats/stream), answered from an
 * in-memory snapshot per event that follows the change log the hold scripts write (hold-store). Depends
 * on the catalogue (the seat list) and the hold store's change log; nothing depends on it.
 */
@Module({
  imports: [CatalogueModule, HoldStoreModule],
  controllers: [SeatMapController],
  providers: [SeatMapSnapshots, SeatMapCompression, SeatMapService, SeatMapStreams],
})
export class SeatMapModule {}
