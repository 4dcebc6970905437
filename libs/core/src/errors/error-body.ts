import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './error-codes';

/** The spec's Error body: the shape of every error response. */
export class ErrorBody {
  @ApiProperty({ description: 'Transaction id; also sent as the x-request-id header.' })
  txId!: string;

  @ApiProperty({ description: 'ISO 8601 time of the error.', example: '2026-01-31T12:00:00.000Z' })
  timestamp!: string;

  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'NOT_FOUND' })
  errorCode!: ErrorCode;

  @ApiPropertyOptional({ description: 'Absent on validation errors.', example: 'Pass not found' })
  errorMessage?: string;

  @ApiPropertyOptional({
    description: 'Keyed by field path for validation errors, or `id` for not-found errors.',
    type: 'object',
    additionalProperties: true,
    example: { id: '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b' },
  })
  context?: Record<string, unknown>;
}

/** The `txId` and `timestamp` of every Error body shown as an example in the OpenAPI document. */
export const ERROR_EXAMPLE_TX = {
  txId: '019a2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b',
  timestamp: '2026-01-31T12:00:00.000Z',
};
