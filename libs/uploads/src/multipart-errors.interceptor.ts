import { APP_CONFIG, MalformedRequestError, PayloadTooLargeError, type AppConfig } from '@app/core';
import {
  BadRequestException,
  CallHandler,
  ExecutionContext,
  Inject,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { catchError, type Observable } from 'rxjs';

/**
 * Placed before Nest's FileInterceptor: its multer errors become domain errors, a file over
 * UPLOAD_MAX_BYTES the same 413 as a JSON upload over it, a malformed form a 400.
 */
@Injectable()
export class MultipartErrorsInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (error instanceof PayloadTooLargeException) {
          throw new PayloadTooLargeError(this.config.upload.maxBytes);
        }
        if (error instanceof BadRequestException) {
          throw new MalformedRequestError(`Malformed multipart form: ${error.message}`);
        }
        throw error;
      }),
    );
  }
}
