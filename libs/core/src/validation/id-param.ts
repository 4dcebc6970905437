import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { ID_PATTERN } from '../ids/ids';

/** `{id}` in a path, checked against the spec's id pattern. */
export class IdParam {
  @ApiProperty({ pattern: ID_PATTERN.source })
  @IsString()
  @Matches(ID_PATTERN, { message: `must match ${ID_PATTERN.source}` })
  @MaxLength(64)
  id!: string;
}
