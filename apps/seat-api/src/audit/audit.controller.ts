import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth.decorators';
import { CatalogueService } from '../catalogue/catalogue.service';
import { Role } from '../auth/roles';
import { ApiErrors } from '../common/api-errors.decorator';
import { ErrorCode } from '../common/errors/error-code';
import { eventIdPipe } from '../common/pipes/event-id.pipe';
import { AuditAction } from './audit-action';
import { AuditedActions } from './audited-actions';
import { AuditPageView } from './dto/audit-page.view';
import { ListAuditQuery } from './dto/list-audit.query';

/** What staff did to an event, as its audit recorded it (admin). */
@ApiTags('staff')
@ApiBearerAuth()
@Controller({ path: 'events', version: '1' })
export class AuditController {
  constructor(
    private readonly actions: AuditedActions,
    private readonly catalogue: CatalogueService,
  ) {}

  @Get(':eventId/audit')
  @Roles(Role.ADMIN)
  @ApiOperation({
    summary: 'Staff actions on an event, oldest first (admin)',
    description:
      'each: actionId, actor, action, target, reason, detail, at; ?limit= and ?offset= page through them',
  })
  @ApiResponse({ status: 200, type: AuditPageView })
  @ApiErrors(
    ErrorCode.FORBIDDEN,
    ErrorCode.EVENT_NOT_FOUND,
    ErrorCode.DEPENDENCY_UNAVAILABLE,
    ErrorCode.AUDIT_UNAVAILABLE,
  )
  async listAudit(
    @Param('eventId', eventIdPipe) eventId: string,
    @Query() { limit, offset }: ListAuditQuery,
  ): Promise<AuditPageView> {
    await this.catalogue.requireSeats(eventId);
    const [rows, total] = await this.actions.page(eventId, limit, offset);
    return {
      eventId,
      total,
      items: rows.map((r) => ({
        actionId: r.id,
        actor: r.actor,
        action: r.action as AuditAction,
        target: r.target,
        ...(r.reason === null ? {} : { reason: r.reason }),
        ...(r.detail === null ? {} : { detail: r.detail }),
        at: r.createdAt.toISOString(),
      })),
    };
  }
}
