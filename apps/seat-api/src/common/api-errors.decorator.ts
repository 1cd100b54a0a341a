import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';

/** The one error envelope, as OpenAPI shows it. */
export class ErrorEnvelopeView {
  @ApiProperty({ example: 409 }) statusCode!: number;
  @ApiProperty({ example: 'SEATS_UNAVAILABLE', description: 'stable machine code' }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object' },
    description: '[{ field, message }] for validation, [{ seatId, reason }] for seats',
  })
  errors?: object[];
  @ApiProperty({ description: 'also in the x-request-id header; quote it when reporting a problem' })
  requestId!: string;
}

/** Documents error answers: `[status, 'CODE_A | CODE_B']`; 400/401 apply to every route and are added here. */
export function ApiErrors(...answers: [number, string][]) {
  const all: [number, string][] = [
    [400, 'VALIDATION_FAILED | MALFORMED_JSON'],
    [401, 'UNAUTHORIZED'],
    ...answers,
  ];
  return applyDecorators(
    ...all.map(([status, codes]) => ApiResponse({ status, type: ErrorEnvelopeView, description: codes })),
  );
}
