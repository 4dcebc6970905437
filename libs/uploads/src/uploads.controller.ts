import {
  AcceptsMultipart,
  Authenticated,
  base64UploadBodyBytes,
  BodyLimits,
  ErrorBody,
  mediaTypeOf,
  RequireWriter,
  type Principal,
} from '@app/core';
import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import { Body, Controller, Headers, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiServiceUnavailableResponse,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import {
  toUploadInput,
  toUploadResponse,
  UploadFileDto,
  UploadResponse,
  type FilePart,
} from './dto/upload.dto';
import { MultipartErrorsInterceptor } from './multipart-errors.interceptor';
import { UploadsService } from './uploads.service';

const PNG_BASE64_EXAMPLE =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==';

@ApiTags('Uploads')
@Controller('uploads/storage')
@Authenticated()
export class UploadsController {
  constructor(private readonly uploads: UploadsService) {}

  @Post()
  @RequireWriter()
  @AcceptsMultipart()
  @BodyLimits({ maxBytes: base64UploadBodyBytes })
  @UseInterceptors(MultipartErrorsInterceptor, FileInterceptor('file'))
  @ApiOperation({
    summary: 'Upload a file into a bucket',
    description:
      'multipart/form-data with a `file` part and an optional `bucket` field, or JSON with the ' +
      'file base64-encoded. The content type is sniffed from the bytes: PNG, JPEG, GIF, WebP, ' +
      'PDF, or UTF-8 text named `.csv`. Bucket `pass-assets` (the default) takes PNG only. ' +
      'The returned `uploadKey` names the file in a pass’s `uploadInfoList`.',
  })
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description: 'multipart: the file part. JSON: the file, base64-encoded.',
        },
        fileName: {
          type: 'string',
          maxLength: 255,
          description: 'JSON only, required there (multipart parts carry their own name).',
        },
        bucket: {
          type: 'string',
          default: 'pass-assets',
          description: 'One of UPLOAD_BUCKETS (default pass-assets, campaign-assets).',
        },
      },
    },
    examples: {
      json: {
        summary: 'JSON: a 1×1 PNG pass image',
        value: { file: PNG_BASE64_EXAMPLE, fileName: 'logo.png', bucket: 'pass-assets' },
      },
      csv: {
        summary: 'JSON: a CSV for a campaign',
        value: {
          file: Buffer.from('platform,views\nSocialA,100\n').toString('base64'),
          fileName: 'performance.csv',
          bucket: 'campaign-assets',
        },
      },
    },
  })
  @ApiCreatedResponse({ type: UploadResponse })
  @ApiBadRequestResponse({
    description: 'A missing or malformed field, or a bucket not in UPLOAD_BUCKETS',
    type: ErrorBody,
  })
  @ApiPayloadTooLargeResponse({ description: 'Larger than UPLOAD_MAX_BYTES', type: ErrorBody })
  @ApiUnsupportedMediaTypeResponse({
    description:
      'Not a recognised file type, not PNG for pass-assets, or a body neither JSON nor multipart',
    type: ErrorBody,
  })
  @ApiServiceUnavailableResponse({ description: 'File storage unavailable', type: ErrorBody })
  async upload(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Headers('content-type') contentType: string | undefined,
    @UploadedFile() part: FilePart | undefined,
    @Body() body: UploadFileDto,
  ): Promise<UploadResponse> {
    const input = toUploadInput(body, part, mediaTypeOf(contentType) === 'multipart/form-data');
    return toUploadResponse(await this.uploads.upload(workspaceId, principal.userId, input));
  }
}
