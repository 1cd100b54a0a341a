import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { Roles } from '../auth/auth.decorators';
import { HoldStore } from '../holds/store';
import { RateLimited } from '../rate-limit/rate-limit.decorator';
import { CatalogueService } from './catalogue.service';
import { CreateEventDto } from './dto/create-event.dto';
import { CreatedEventView, SeatMapView, SeatView } from './seat-map.view';

@ApiTags('events')
@ApiBearerAuth()
@Controller('v1/events')
export class CatalogueController {
  constructor(
    private readonly catalogue: CatalogueService,
    private readonly holds: HoldStore,
  ) {}

  @Post()
  @Roles('admin')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an event with its seat layout (admin)' })
  @ApiResponse({ status: 201, type: CreatedEventView })
  @ApiErrors([403, 'FORBIDDEN'], [413, 'PAYLOAD_TOO_LARGE'])
  create(@Body() dto: CreateEventDto): Promise<CreatedEventView> {
    return this.catalogue.createEvent(dto);
  }

  @Get(':eventId/seats')
  @RateLimited('seatMapRead')
  @ApiOperation({ summary: 'Seat map: every seat AVAILABLE, HELD or BOOKED (never who holds it)' })
  @ApiResponse({ status: 200, type: SeatMapView })
  @ApiErrors([404, 'EVENT_NOT_FOUND'], [429, 'RATE_LIMITED (Retry-After)'], [503, 'DEPENDENCY_UNAVAILABLE'])
  async seatMap(@Param('eventId', eventIdPipe) eventId: string): Promise<SeatMapView> {
    const seats = await this.catalogue.requireSeats(eventId);
    const states = await this.holds.seatStates(eventId);
    let held = 0;
    let booked = 0;
    const list = [...seats.values()].map((s): SeatView => {
      const status = states.get(s.seatId) ?? 'AVAILABLE';
      if (status === 'HELD') {
        held++;
      } else if (status === 'BOOKED') {
        booked++;
      }
      return { eventId, ...s, status };
    });
    return {
      eventId,
      counts: { total: list.length, available: list.length - held - booked, held, booked },
      seats: list,
    };
  }
}
