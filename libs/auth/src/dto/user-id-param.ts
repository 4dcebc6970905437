import { ID_PATTERN } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';

export class UserIdParam {
  @ApiProperty({ pattern: ID_PATTERN.source })
  @IsString()
  @Matches(ID_PATTERN, { message: `must match ${ID_PATTERN.source}` })
  @MaxLength(64)
  userId!: string;
}
