import { Authenticated, ErrorBody, IdParam, type Principal } from '@app/core';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  ApiKeyResponse,
  CreateApiKeyDto,
  CreatedApiKeyResponse,
  toApiKeyResponse,
} from '../dto/api-key.dto';

import { CurrentPrincipal } from '../guards/decorators';
import { ApiKeysService } from '../services/api-keys.service';

@ApiTags('Identity')
@Controller('api-keys')
@Authenticated()
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Post()
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'The key inherits the permissions of the user creating it. Its value is in this response only and cannot be retrieved later.',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyResponse })
  @ApiBadRequestResponse({ type: ErrorBody })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateApiKeyDto,
  ): Promise<CreatedApiKeyResponse> {
    const { apiKey, key } = await this.apiKeys.create(principal, body.name);
    return { ...toApiKeyResponse(apiKey), key };
  }

  @Get()
  @ApiOperation({ summary: "The caller's API keys (never their secret values)" })
  @ApiOkResponse({ type: [ApiKeyResponse] })
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyResponse[]> {
    return (await this.apiKeys.list(principal)).map(toApiKeyResponse);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key; it stops working at once' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse({ type: ErrorBody })
  async revoke(@CurrentPrincipal() principal: Principal, @Param() { id }: IdParam): Promise<void> {
    await this.apiKeys.revoke(principal, id);
  }
}
