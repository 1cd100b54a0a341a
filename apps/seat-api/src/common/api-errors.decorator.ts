import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorCode } from './errors/error-code';
import { HTTP_ANSWERS } from './errors/error-http';

/** The one error envelope, as OpenAPI shows it; each answer narrows `code` to the codes it can carry. */
export class ErrorEnvelopeView {
  @ApiProperty({ example: 409 }) statusCode!: number;
  @ApiProperty({ enum: ErrorCode, enumName: 'ErrorCode', description: 'stable machine code' }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description:
      '[{ field, message }] for validation (a ttlSeconds out of range adds its bounds: min, max), [{ seatId, reason }] for seats',
  })
  errors?: object[];
  @ApiProperty({ description: 'also in the x-request-id header; quote it when reporting a problem' })
  requestId!: string;
}

/** What `errors` holds for the codes that fill it. */
const DETAILS: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.VALIDATION_FAILED]: 'errors: [{ field, message }]',
  [ErrorCode.SEAT_NOT_FOUND]: 'errors: [{ seatId }]',
  [ErrorCode.SEATS_UNAVAILABLE]: 'errors: [{ seatId, reason: HELD | BOOKED }]',
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'seconds to wait before trying again',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** Refusals any route can give: its input (parameters, body) is validated at the edge. */
const INPUT_ERRORS = [ErrorCode.VALIDATION_FAILED, ErrorCode.MALFORMED_JSON];

/**
 * Documents the error answers of a route that needs a token: the codes given, plus the input and
 * authentication refusals every such route has. Each code's status comes from the same table the error
 * filter answers with (errors/error-http.ts), so the document cannot disagree with the replies: one
 * response per status, its `code` an enum of exactly those codes, and Retry-After where they send it.
 */
export function ApiErrors(...codes: ErrorCode[]) {
  return documentErrors([...INPUT_ERRORS, ErrorCode.UNAUTHORIZED, ...codes]);
}

/** The same for a public route (no token needed, so never 401). */
export function ApiPublicErrors(...codes: ErrorCode[]) {
  return documentErrors([...INPUT_ERRORS, ...codes]);
}

function documentErrors(codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = HTTP_ANSWERS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses = [...byStatus].map(([status, group]) =>
    ApiResponse({
      status,
      description: group.map((c) => (DETAILS[c] ? `${c} (${DETAILS[c]})` : c)).join(' | '),
      headers: group.some((c) => HTTP_ANSWERS[c].retryAfterSeconds !== undefined) ? RETRY_AFTER : undefined,
      // always JSON, also on a route that produces something else (the seat-map stream)
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: getSchemaPath(ErrorEnvelopeView) },
              {
                type: 'object',
                properties: {
                  statusCode: { type: 'integer', enum: [status] },
                  code: { type: 'string', enum: group },
                },
              },
            ],
          },
        },
      },
    }),
  );
  return applyDecorators(ApiExtraModels(ErrorEnvelopeView), ...responses);
}
