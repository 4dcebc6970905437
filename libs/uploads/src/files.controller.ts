import { ErrorBody, Public } from '@app/core';
import { Controller, Get, Param, Query, Res, StreamableFile } from '@nestjs/common';
import {
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { SignedFileQuery } from './dto/signed-file.query';
import { FilesService } from './files.service';
import { contentDisposition } from './storage/storage-driver';

/** Express 5 hands a `{*key}` wildcard over as its segments. */
function joinKey(key: string | string[]): string {
  return Array.isArray(key) ? key.join('/') : key;
}

@ApiTags('Uploads')
@Controller('files')
@Public()
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Get('{*key}')
  @ApiOperation({
    summary: 'Download a file through a signed, expiring link',
    description:
      'The links come from the service (local storage driver); they need no credentials.',
  })
  @ApiParam({ name: 'key', description: 'Storage key of the file', type: String })
  @ApiOkResponse({
    description: 'The file, with its stored content type',
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiForbiddenResponse({ description: 'Missing, wrong or expired signature', type: ErrorBody })
  @ApiNotFoundResponse({ description: 'No file under this key', type: ErrorBody })
  async download(
    @Param('key') key: string | string[],
    @Query() query: SignedFileQuery,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const file = await this.files.openSigned(joinKey(key), query.expires, query.signature);
    response.setHeader('Cache-Control', `private, max-age=${file.maxAgeSeconds}`);
    response.setHeader('X-Content-Type-Options', 'nosniff');
    // A signed link is made to be shown anywhere (a pass image in a client's dashboard, the
    // holder page's logo): lift helmet's same-origin resource policy for it; the signature and
    // expiry are what protect the file.
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    return new StreamableFile(file.stream, {
      type: file.contentType,
      length: file.size,
      disposition: contentDisposition(file.fileName, file.contentType),
    });
  }
}
