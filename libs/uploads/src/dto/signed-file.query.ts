import { ApiPropertyOptional } from '@nestjs/swagger';
import { Allow } from 'class-validator';

/** The query of a signed download link; checked by the signature, not by shape (→ 403). */
export class SignedFileQuery {
  @ApiPropertyOptional({ type: String, description: 'Unix time (seconds) the link expires at' })
  @Allow()
  expires?: unknown;

  @ApiPropertyOptional({ type: String, description: 'Hex HMAC-SHA256 of the key and expiry' })
  @Allow()
  signature?: unknown;
}
