import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { Roles } from '../auth/auth.decorators';
import { CatalogueService } from './catalogue.service';
import { CreatedEventView } from './created-event.view';
import { CreateEventDto } from './dto/create-event.dto';

/** Events and their seat layouts. The seat map of an event is the seat-map module's (seat-map/). */
@ApiTags('events')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class CatalogueController {
  constructor(private readonly catalogue: CatalogueService) {}

  @Post()
  @Roles('admin')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an event with its seat layout (admin)' })
  @ApiResponse({ status: 201, type: CreatedEventView })
  @ApiErrors(ErrorCode.FORBIDDEN, ErrorCode.PAYLOAD_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
  createEvent(@Body() dto: CreateEventDto): Promise<CreatedEventView> {
    return this.catalogue.createEvent(dto);
  }
}
