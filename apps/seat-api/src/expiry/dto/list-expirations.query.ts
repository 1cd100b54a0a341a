import { PageQuery } from '../../common/page.query';

/** `?limit&offset` of GET /v1/events/{eventId}/expirations; any other parameter is refused. */
export class ListExpirationsQuery extends PageQuery {}
