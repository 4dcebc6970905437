import { PageQuery, QueryId } from '@app/core';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { DeviceLog } from '../device-log.entity';

/** GET /wallet-pass/{id}/device-logs. */
export class ListDeviceLogsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: "Only the entries naming this holder's serial number.",
    example: '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b',
  })
  @QueryId()
  holderId?: string;
}

export class DeviceLogResponse {
  @ApiProperty({
    example:
      'Get pass task (pass type pass.com.example.wallet-pass-service, serial number ' +
      '5f0c2a9e4b7d41c3a8e6d2f1b0c9a7e4, if-modified-since Wed, 25 Nov 2026 09:00:00 GMT; with ' +
      'web service url https://wallet.brand.example/passkit) encountered error: Unexpected ' +
      'response code 401',
    description:
      "As the device sent it, without Wallet's leading timestamp; at most 2,000 characters. " +
      'Text from a device, never interpreted: show it as text.',
  })
  message!: string;
  @ApiProperty({ example: 3, description: 'How many times devices posted it' }) count!: number;
  @ApiProperty({ format: 'date-time', description: 'When it was first received' })
  firstTime!: string;
  @ApiProperty({ format: 'date-time', description: 'When it was last received' })
  lastTime!: string;
  @ApiProperty({
    example: '5f0c2a9e4b7d41c3a8e6d2f1b0c9a7e4',
    description: "The serial number it names: the pass's id, or a holder's serial number.",
  })
  serialNumber!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '019a2b3c-2222-7f60-8a1b-2c3d4e5f6a7b',
    description: "The holder whose serial number it names; null: the shared pass's.",
  })
  holderId!: string | null;
  @ApiProperty({
    example: true,
    description:
      "True: posted from a client address that had sent this serial number's authentication " +
      'token to the web service (registering a device, or fetching the pass) shortly before: ' +
      'within the hour, at most two. False: nothing ties it to a device holding the pass; ' +
      "Apple's log route takes no credentials, so anyone who knows the serial number can post " +
      "such a message. A shared pass's token is in its public package, so for the shared pass " +
      'true shows only that the sender had the pass. The same message posted both ways is two ' +
      'entries.',
  })
  verified!: boolean;
}

export class DeviceLogPage {
  @ApiProperty({ type: [DeviceLogResponse] }) items!: DeviceLogResponse[];
  @ApiProperty({ nullable: true, type: String }) cursor!: string | null;
  @ApiProperty() hasMore!: boolean;
}

export function toDeviceLogResponse(log: DeviceLog): DeviceLogResponse {
  return {
    message: log.message,
    count: log.count,
    firstTime: log.firstTime.toISOString(),
    lastTime: log.lastTime.toISOString(),
    serialNumber: log.serialNumber,
    holderId: log.holderId,
    verified: log.verified,
  };
}
