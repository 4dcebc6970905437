import { CurrentPrincipal, CurrentWorkspace } from '@app/auth';
import {
  AcceptsMultipart,
  Authenticated,
  BodyLimits,
  ErrorBody,
  IdParam,
  InvalidInputError,
  mapPage,
  MUST_NOT_BE_NULL,
  RequireWriter,
  type Principal,
  ERROR_EXAMPLE_TX,
} from '@app/core';
import { MultipartErrorsInterceptor } from '@app/uploads';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { HolderInputDto, HolderPathParams } from './holder-input.dto';
import {
  HolderImportResponse,
  HolderPage,
  HolderResponse,
  toHolderResponse,
} from './holder.response';
import { ListHoldersQuery } from './list-holders.query';
import { MAX_IMPORT_ROWS, readCsvImport, readJsonImport } from './holder-import';
import { HoldersService } from './holders.service';

/** What the import route reads of the file part multer leaves on the request (memory storage). */
interface CsvPart {
  buffer: Buffer;
}

const PASS_NOT_FOUND = {
  description: 'Unknown pass, or a pass of another workspace (deleted: 404 on reads)',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'NOT_FOUND',
    errorMessage: 'Pass not found',
    context: { id: 'x' },
  },
};
const HOLDER_NOT_FOUND = {
  description: 'Unknown pass, or a holder of another pass or workspace',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'NOT_FOUND',
    errorMessage: 'Holder not found',
    context: { id: '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b' },
  },
};
const INVALID = {
  description: 'A field out of its rules, or a `fieldValues` key of no topField/secondaryField',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'INVALID_INPUT',
    context: {
      externalId: 'must match ^[A-Za-z0-9._@+-]+$',
      'fieldValues.tier': "is not a field of the pass; its face fields' keys are points, name",
    },
  },
};
const DUPLICATE = {
  ...ERROR_EXAMPLE_TX,
  errorCode: 'CONFLICT',
  errorMessage: 'A holder with this externalId already exists for the pass',
  context: { externalId: 'member-10442' },
};
const BAD_PATH = {
  description: 'A malformed pass id or holder id',
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'INVALID_INPUT',
    context: { holderId: 'must match ^[a-zA-Z0-9-_]+$' },
  },
};
const DELETED = {
  ...ERROR_EXAMPLE_TX,
  errorCode: 'CONFLICT',
  errorMessage: 'A deleted pass takes no holders',
  context: { deletedTime: '2026-01-30T09:15:00.000Z' },
};
const TOO_LARGE = (limitBytes: number, description: string) => ({
  description,
  type: ErrorBody,
  example: {
    ...ERROR_EXAMPLE_TX,
    errorCode: 'PAYLOAD_TOO_LARGE',
    errorMessage: `Request body is larger than ${limitBytes} bytes`,
    context: { limitBytes },
  },
});
const DRAFT = {
  ...ERROR_EXAMPLE_TX,
  errorCode: 'CONFLICT',
  errorMessage: 'A Draft pass takes no holders; publish it first',
  context: { status: 'Draft' },
};
const HOLDER_EXAMPLE = {
  externalId: 'member-10442',
  fieldValues: { points: '1200', name: 'Maya Rivera' },
  barcodeValue: 'https://brand.example/member/10442',
  barcodeText: 'Member 10442',
  tags: ['gold', 'newsletter'],
  attributes: { city: 'Zurich', spend: 1840.5 },
};

/**
 * JSON body limits of POST and PATCH. The largest valid HolderInput with every character sent as
 * a `\uXXXX` escape (6 bytes each): fourteen field values (a boarding pass's most: three header,
 * two primary, four secondary and five auxiliary) of 2,000 characters under keys of up to 64, a
 * barcodeValue of 2,048, a barcodeText and an externalId of 255 and two dates of 40:
 * 6 × (14 × 2,064 + 2,048 + 2 × 255 + 2 × 40) ≈ 190 KB, over the default 64 KiB, which would
 * answer such valid bodies with a 413. 256 KiB leaves room for whitespace.
 */
const HOLDER_BODY_LIMITS = { maxBytes: 256 * 1024 };
const BODY_TOO_LARGE = TOO_LARGE(HOLDER_BODY_LIMITS.maxBytes, 'A JSON body over 256 KiB');
/** An import's JSON body limit (see the import route). */
const IMPORT_JSON_BYTES = 32 * 1024 * 1024;

function isMultipart(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0].trim().toLowerCase() === 'multipart/form-data';
}

/**
 * Personal copies of a Published pass. Reads for every role that reads passes,
 * writes for writers, like the pass routes.
 */
@ApiTags('Holders')
@Controller('wallet-pass/:id/holders')
@Authenticated()
@ApiExtraModels(HolderInputDto)
export class HoldersController {
  constructor(private readonly holders: HoldersService) {}

  @Post()
  @RequireWriter()
  @BodyLimits(HOLDER_BODY_LIMITS)
  @ApiOperation({
    summary: 'Create a holder',
    description:
      'A personal copy of a Published pass: its own serial number, barcode and field values. ' +
      '`externalId` is required and unique per pass. `barcodeValue`/`barcodeText` default to ' +
      "the pass's `qrUrl`/`qrText`.",
  })
  @ApiBody({
    type: HolderInputDto,
    examples: {
      holder: { value: HOLDER_EXAMPLE },
      passenger: {
        summary: "A flight's passenger (the semantic boarding pass, when the flight has its times)",
        value: {
          externalId: 'booking-ABC123-1',
          passengerName: { givenName: 'Maya', familyName: 'Rivera' },
          fieldValues: { seat: '3A', gate: 'E44' },
        },
      },
    },
  })
  @ApiCreatedResponse({ type: HolderResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiNotFoundResponse(PASS_NOT_FOUND)
  @ApiPayloadTooLargeResponse(BODY_TOO_LARGE)
  @ApiConflictResponse({
    description: 'A Draft or deleted pass, or the externalId is taken for this pass',
    type: ErrorBody,
    examples: {
      duplicate: { summary: 'externalId taken', value: DUPLICATE },
      draft: { summary: 'Draft pass', value: DRAFT },
      deleted: { summary: 'Deleted pass', value: DELETED },
    },
  })
  async create(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Body() body: HolderInputDto,
  ): Promise<HolderResponse> {
    return toHolderResponse(await this.holders.create(workspaceId, principal.userId, id, body));
  }

  @Get()
  @ApiOperation({
    summary: "Search a pass's holders, newest first",
    description: 'Keyset pages: pass the `cursor` of a page to get the next.',
  })
  @ApiOkResponse({ type: HolderPage })
  @ApiBadRequestResponse({
    description: 'A bad filter, limit or cursor, or a malformed pass id',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'INVALID_INPUT',
      context: {
        status: 'each value in status must be one of the following values: Active, Voided',
      },
    },
  })
  @ApiNotFoundResponse(PASS_NOT_FOUND)
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id }: IdParam,
    @Query() query: ListHoldersQuery,
  ): Promise<HolderPage> {
    return mapPage(await this.holders.list(workspaceId, id, query), toHolderResponse);
  }

  @Post('import')
  @HttpCode(200)
  @RequireWriter()
  @AcceptsMultipart()
  // 10,000 rows of a few short values each is about 2 MB; 32 MiB takes 10,000 rows of every
  // face field at length, and a larger body is a 413.
  @BodyLimits({ maxBytes: IMPORT_JSON_BYTES, maxItems: MAX_IMPORT_ROWS, maxValues: 200_000 })
  @UseInterceptors(MultipartErrorsInterceptor, FileInterceptor('file'))
  @ApiOperation({
    summary: 'Import holders (upsert by externalId)',
    description:
      `A JSON array of HolderInput (at most ${MAX_IMPORT_ROWS}), or multipart/form-data with a ` +
      '`file` part: UTF-8 CSV with the header `externalId,barcodeValue,barcodeText` plus one ' +
      'column per field key of the pass, `relevantDate`, `expirationDate`, `nfcMessage`, ' +
      '`passengerName.givenName` and `passengerName.familyName` (a boardingPass holder), ' +
      '`tags` (separated by `|`) and `attr.<key>` columns ' +
      '(only externalId is required; an empty field cell is not set, an empty `attr.<key>` ' +
      'cell removes the attribute). A new externalId creates a holder; an Active one gets the ' +
      "row's values (values left out go back to the pass's; tags and attributes change as in " +
      'a PATCH). All or nothing: any bad row is a 400 keyed ' +
      '`"<index>.<field>"` (JSON) or `"line <n>"` (CSV, the header is line 1) and nothing is ' +
      'written.',
  })
  @ApiConsumes('application/json', 'multipart/form-data')
  @ApiBody({
    schema: {
      oneOf: [
        {
          type: 'array',
          maxItems: MAX_IMPORT_ROWS,
          items: { $ref: getSchemaPath(HolderInputDto) },
        },
        {
          type: 'object',
          required: ['file'],
          properties: { file: { type: 'string', format: 'binary', description: 'The CSV file' } },
        },
      ],
    },
    examples: {
      json: { summary: 'JSON rows', value: [HOLDER_EXAMPLE, { externalId: 'member-10443' }] },
      csv: {
        summary: 'The CSV file (sent as the multipart `file` part)',
        value:
          'externalId,barcodeValue,barcodeText,points,tags,attr.city\n' +
          'member-10442,https://brand.example/member/10442,Member 10442,1200,gold|vip,Zurich\n' +
          'member-10443,,,80,,\n',
      },
    },
  })
  @ApiOkResponse({ type: HolderImportResponse })
  @ApiBadRequestResponse({
    description: 'A bad row (nothing written), more than 10,000 rows, or a malformed file',
    type: ErrorBody,
    example: {
      ...ERROR_EXAMPLE_TX,
      errorCode: 'INVALID_INPUT',
      context: {
        '3.externalId': 'must not be null',
        'line 7': 'barcodeText must be shorter than or equal to 255 characters',
      },
    },
  })
  @ApiNotFoundResponse(PASS_NOT_FOUND)
  @ApiConflictResponse({
    description: 'A Draft or deleted pass, or a row names a Voided holder (nothing written)',
    type: ErrorBody,
    examples: {
      draft: { summary: 'Draft pass', value: DRAFT },
      deleted: { summary: 'Deleted pass', value: DELETED },
      voided: {
        summary: 'A row names a Voided holder',
        value: {
          ...ERROR_EXAMPLE_TX,
          errorCode: 'CONFLICT',
          errorMessage: 'A Voided holder cannot come back; use another externalId',
          context: { '12.externalId': 'member-10442' },
        },
      },
    },
  })
  @ApiPayloadTooLargeResponse(
    TOO_LARGE(IMPORT_JSON_BYTES, 'A JSON body over 32 MiB or a file over UPLOAD_MAX_BYTES'),
  )
  async import(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id }: IdParam,
    @Headers('content-type') contentType: string | undefined,
    @UploadedFile() part: CsvPart | undefined,
    @Body() body: unknown,
  ): Promise<HolderImportResponse> {
    if (!isMultipart(contentType)) {
      const rows = readJsonImport(body);
      return this.holders.import(workspaceId, principal.userId, id, rows);
    }
    if (part === undefined) throw new InvalidInputError({ file: MUST_NOT_BE_NULL });
    return this.holders.import(workspaceId, principal.userId, id, (fieldKeys) =>
      readCsvImport(part.buffer, fieldKeys),
    );
  }

  @Get(':holderId')
  @ApiOperation({ summary: 'One holder' })
  @ApiOkResponse({ type: HolderResponse })
  @ApiBadRequestResponse(BAD_PATH)
  @ApiNotFoundResponse(HOLDER_NOT_FOUND)
  async get(
    @CurrentWorkspace() workspaceId: string,
    @Param() { id, holderId }: HolderPathParams,
  ): Promise<HolderResponse> {
    return toHolderResponse(await this.holders.get(workspaceId, id, holderId));
  }

  @Patch(':holderId')
  @RequireWriter()
  @BodyLimits(HOLDER_BODY_LIMITS)
  @ApiOperation({
    summary: 'Update a holder',
    description:
      'Any subset of HolderInput. `fieldValues` merges by key (a key set to null goes back to ' +
      "the pass's value); a null barcode goes back to the pass's; `tags` replaces the list; " +
      '`attributes` merges by key (null removes one). A new `externalId` must be free for the ' +
      'pass. Returns the holder.',
  })
  @ApiBody({
    type: HolderInputDto,
    examples: {
      points: { value: { fieldValues: { points: '1350' } } },
      passenger: {
        summary: "A boarding pass holder's passenger",
        value: { passengerName: { givenName: 'Maya', familyName: 'Rivera' } },
      },
    },
  })
  @ApiOkResponse({ type: HolderResponse })
  @ApiBadRequestResponse(INVALID)
  @ApiNotFoundResponse(HOLDER_NOT_FOUND)
  @ApiPayloadTooLargeResponse(BODY_TOO_LARGE)
  @ApiConflictResponse({
    description: 'The holder is Voided, or the new externalId is taken',
    type: ErrorBody,
    examples: { duplicate: { summary: 'externalId taken', value: DUPLICATE } },
  })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, holderId }: HolderPathParams,
    @Body() body: HolderInputDto,
  ): Promise<HolderResponse> {
    return toHolderResponse(
      await this.holders.update(workspaceId, principal.userId, id, holderId, body),
    );
  }

  @Delete(':holderId')
  @HttpCode(204)
  @RequireWriter()
  @ApiOperation({
    summary: 'Void a holder',
    description:
      'The holder becomes `Voided` (for good: it cannot be changed or imported again). A ' +
      'second DELETE is a 204 too.',
  })
  @ApiNoContentResponse()
  @ApiBadRequestResponse(BAD_PATH)
  @ApiNotFoundResponse(HOLDER_NOT_FOUND)
  async remove(
    @CurrentWorkspace() workspaceId: string,
    @CurrentPrincipal() principal: Principal,
    @Param() { id, holderId }: HolderPathParams,
  ): Promise<void> {
    await this.holders.remove(workspaceId, principal.userId, id, holderId);
  }
}
