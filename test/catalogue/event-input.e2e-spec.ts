/**
 * What POST /v1/events takes, and that a client can find it out before being refused: an event that
 * starts in the past is refused naming `startsAt`; the layout limits (seats per event, section and row
 * names) are in the OpenAPI document; a body that is not JSON is told which media type is expected; a
 * section, row or settings that is an array instead of an object is refused naming it.
 */
import { Api, startApi } from '../support/seat-api';

let api: Api;
let admin: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  admin = await api.token('admin-1', ['admin']);
});
afterAll(() => api?.close());

const layout = (startsAt: string) => ({
  name: 'Yesterday',
  startsAt,
  sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 3 }] }],
});

it('refuses an event whose startsAt is in the past with 400 naming startsAt', async () => {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: layout(new Date(Date.now() - 60_000).toISOString()),
  });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({
    code: 'VALIDATION_FAILED',
    errors: [{ field: 'startsAt', message: expect.stringContaining('future') }],
  });
  const ahead = await api.call('POST', '/v1/events', {
    token: admin,
    body: layout(new Date(Date.now() + 3_600_000).toISOString()),
  });
  expect(ahead.status).toBe(201);
});

it('documents the layout limits in /docs-json: seats per event, section and row names', async () => {
  const doc = (await api.call('GET', '/docs-json')).body as {
    components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> };
  };
  const { CreateEventDto, SectionLayoutDto, RowLayoutDto } = doc.components.schemas;
  expect(CreateEventDto.properties.sections.description).toMatch(/100,000 seats/);
  expect(CreateEventDto.properties.startsAt.description).toMatch(/future/);
  expect(SectionLayoutDto.properties.name.description).toMatch(/1-12 letters, digits, _ or -/);
  expect(SectionLayoutDto.properties.rows.description).toMatch(/500/);
  expect(RowLayoutDto.properties.row.description).toMatch(/1-12 letters, digits, _ or -/);
  expect(RowLayoutDto.properties.seats.description).toMatch(/500/);
});

it('answers a body that is not JSON with 415 saying application/json is expected', async () => {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    raw: 'name=x',
    headers: { 'content-type': 'text/plain' },
  });
  expect(r.status).toBe(415);
  expect(r.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  expect(r.body.message).toMatch(/application\/json/);
});

it.each([
  ['a section that is an array', { sections: [[]] }, 'sections'],
  ['a section that is an array of sections', { sections: [[layout('').sections[0]]] }, 'sections'],
  ['a row that is an array', { sections: [{ name: 'S', category: 'c', rows: [[]] }] }, 'sections.0.rows'],
  ['settings that are an array', { settings: [] }, 'settings'],
])('refuses %s with 400 naming it', async (_what, change, field) => {
  const body = { ...layout(new Date(Date.now() + 3_600_000).toISOString()), ...change };
  const r = await api.call('POST', '/v1/events', { token: admin, body });
  expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  expect(r.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
});
