import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { Roles } from '../auth/auth.decorators';
import { CatalogueService } from './catalogue.service';
import { CreatedEventView } from './created-event.view';
import { CreateEventDto } from './dto/create-event.dto';

/** Events and their seat layouts. The seat map of an event is the seat-map module's (seat-map/). */
@ApiTags('events')
@ApiBearerAuth()
@Controller('v1/events')
export class CatalogueController {
  constructor(private readonly catalogue: CatalogueService) {}

  @Post()
  @Roles('admin')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an event with its seat layout (admin)' })
  @ApiResponse({ status: 201, type: CreatedEventView })
  @ApiErrors([403, 'FORBIDDEN'], [413, 'PAYLOAD_TOO_LARGE'])
  create(@Body() dto: CreateEventDto): Promise<CreatedEventView> {
    return this.catalogue.createEvent(dto);
  }
}
