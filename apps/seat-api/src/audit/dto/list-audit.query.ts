import { PageQuery } from '../../common/page.query';

/** `?limit&offset` of GET /v1/events/{eventId}/audit; any other parameter is refused. */
export class ListAuditQuery extends PageQuery {}
