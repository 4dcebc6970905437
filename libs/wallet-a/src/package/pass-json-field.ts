/** A field of pass.json, as the package writes it and the holder page shows it. */
export interface PassJsonField {
  key: string;
  label?: string;
  value: string;
  attributedValue?: string;
  changeMessage?: string;
  dateStyle?: PKDateStyle;
  timeStyle?: PKDateStyle;
}

/** A field's `dateStyle`/`timeStyle` as pass.json names it. */
export const PK_DATE_STYLES = {
  none: 'PKDateStyleNone',
  short: 'PKDateStyleShort',
  medium: 'PKDateStyleMedium',
  long: 'PKDateStyleLong',
  full: 'PKDateStyleFull',
} as const;
export type PKDateStyle = (typeof PK_DATE_STYLES)[keyof typeof PK_DATE_STYLES];
