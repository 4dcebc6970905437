import { Required } from '@app/core';
import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsUrl, MaxLength } from 'class-validator';

/**
 * The featured actions a pass may offer (iOS 27), each opening a link: Apple's "Defining the
 * metadata of your Wallet Pass", "Add Featured Actions", whose table lists every action type.
 * `call` (the phone app) and `place` (Maps) are left out: no first-party description says what
 * their value is (docs/decisions.md, "Newest styles").
 */
export const FEATURED_ACTION_TYPES = [
  'viewSchedule',
  'watchTrailer',
  'listenToMusic',
  'addToBalance',
  'order',
  'shop',
  'membershipBenefits',
  'bookAppointment',
  'bookCar',
  'bookFlight',
  'bookStay',
  'viewOffersRewards',
] as const;
export type FeaturedActionType = (typeof FEATURED_ACTION_TYPES)[number];

/** Apple: "Each pass can contain up to two featured actions" (WWDC26, "What's new in Wallet"). */
export const MAX_FEATURED_ACTIONS = 2;

export class FeaturedActionDto {
  @ApiProperty({
    enum: FEATURED_ACTION_TYPES,
    example: 'membershipBenefits',
    description:
      'The action: Wallet draws it below the pass with its own icon and call to action in the ' +
      "holder's language (`membershipBenefits`: View Membership Benefits). Unique on the pass.",
  })
  @Required()
  @IsIn(FEATURED_ACTION_TYPES)
  type!: FeaturedActionType;

  @ApiProperty({ example: 'https://brand.example/benefits', maxLength: 2048 })
  @Required()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'must be an http(s) URL' },
  )
  @MaxLength(2048)
  url!: string;
}
