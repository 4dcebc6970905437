import { InvalidInputError, IsPaddedBase64, MUST_NOT_BE_NULL, NotEmpty } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { KNOWN_CONTENT_TYPES } from '../content/content-type';
import { MAX_FILE_NAME_LENGTH } from '../content/file-name';
import type { Upload } from '../upload.entity';
import type { UploadInput } from '../uploads.service';

/**
 * The body of `POST /v1/uploads/storage`. In JSON, `file` (base64) and `fileName` are
 * required; in multipart/form-data the file is the `file` part, which carries its own name,
 * and only `bucket` may come as a text field. {@link toUploadInput} checks which form it is.
 */
export class UploadFileDto {
  @ApiPropertyOptional({ description: 'JSON only: the file, base64-encoded' })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @IsPaddedBase64()
  file?: string;

  @ApiPropertyOptional({ description: 'JSON only: the file name', maxLength: 255 })
  @IsOptional()
  @IsString()
  @NotEmpty()
  @MaxLength(MAX_FILE_NAME_LENGTH)
  fileName?: string;

  @ApiPropertyOptional({ description: 'One of UPLOAD_BUCKETS', default: 'pass-assets' })
  @IsOptional()
  @IsString()
  @MaxLength(63)
  bucket?: string;
}

/** What this route reads of the file part multer leaves on the request (memory storage). */
export interface FilePart {
  buffer: Buffer;
  originalname: string;
}

/** Turns either request form into the service's input, or a field-by-field 400. */
export function toUploadInput(
  body: UploadFileDto,
  part: FilePart | undefined,
  multipart: boolean,
): UploadInput {
  const problems: Record<string, string> = {};
  if (multipart) {
    if (body.file !== undefined) problems.file = 'must be a file part, not a text field';
    else if (part === undefined) problems.file = MUST_NOT_BE_NULL;
    if (body.fileName !== undefined) problems.fileName = 'is not a known field';
    if (part === undefined || Object.keys(problems).length > 0) {
      throw new InvalidInputError(problems);
    }
    return { body: part.buffer, fileName: part.originalname, bucket: body.bucket };
  }

  if (body.file === undefined || body.file === null) problems.file = MUST_NOT_BE_NULL;
  if (body.fileName === undefined || body.fileName === null) problems.fileName = MUST_NOT_BE_NULL;
  if (body.file == null || body.fileName == null) throw new InvalidInputError(problems);
  return { body: Buffer.from(body.file, 'base64'), fileName: body.fileName, bucket: body.bucket };
}

export class UploadResponse {
  @ApiProperty({ example: 'File uploaded' }) msg!: string;

  @ApiProperty({
    description: "Names the file in a pass's `uploadInfoList`. Opaque.",
    example: '0193a5e0-7b7a-7c1e-9d51-3f0b6c1e2a4b',
  })
  uploadKey!: string;

  @ApiProperty({ description: 'The sanitised file name', example: 'logo.png' })
  fileName!: string;

  @ApiProperty({ example: 'pass-assets' }) bucket!: string;
  @ApiProperty({ description: 'Bytes', example: 5120 }) size!: number;

  @ApiProperty({
    description: "Sniffed from the file's bytes, never taken from its name",
    enum: KNOWN_CONTENT_TYPES,
    example: 'image/png',
  })
  contentType!: string;
}

export function toUploadResponse(upload: Upload): UploadResponse {
  return {
    msg: 'File uploaded',
    uploadKey: upload.id,
    fileName: upload.fileName,
    bucket: upload.bucket,
    size: upload.size,
    contentType: upload.contentType,
  };
}
