import type { ValueTransformer } from 'typeorm';

/**
 * `bigint` columns: MySQL hands them back as strings, SQLite as numbers. View counts stay far
 * below 2^53, so they are numbers in the code.
 */
export const BIGINT_AS_NUMBER: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

export const PLATFORMS = ['SocialA', 'SocialB'] as const;
export type Platform = (typeof PLATFORMS)[number];
