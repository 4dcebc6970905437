import { InvalidInputError, MalformedRequestError } from '@app/core';
import { Injectable, type PipeTransform } from '@nestjs/common';
import {
  MAX_IMPORT_RECORDS,
  validateVideoPerformance,
  type VideoPerformanceInputDto,
} from './video-performance.dto';

/** Failing records reported at most; the array is refused either way. */
const MAX_REPORTED_RECORDS = 20;

/**
 * The JSON body of a video-performance import: an array of 1 to 1000 records, each checked as
 * the global pipe checks a body (which it does not do for top-level arrays). Failures are keyed
 * by index and field, `[3].views`, and any failure refuses the whole array.
 */
@Injectable()
export class VideoPerformanceArrayPipe implements PipeTransform<
  unknown,
  VideoPerformanceInputDto[]
> {
  transform(value: unknown): VideoPerformanceInputDto[] {
    if (!Array.isArray(value)) {
      throw new MalformedRequestError('The body must be a JSON array of video-performance records');
    }
    if (value.length < 1 || value.length > MAX_IMPORT_RECORDS) {
      throw new MalformedRequestError(
        `The body must hold 1 to ${MAX_IMPORT_RECORDS} records; it holds ${value.length}`,
        { count: value.length, max: MAX_IMPORT_RECORDS },
      );
    }
    const records: VideoPerformanceInputDto[] = [];
    const errors: Record<string, string> = {};
    let failures = 0;
    for (const [index, item] of value.entries()) {
      const result = validateVideoPerformance(item, `[${index}]`);
      if (result.errors === undefined) {
        records.push(result.record);
        continue;
      }
      Object.assign(errors, result.errors);
      if (++failures >= MAX_REPORTED_RECORDS) break;
    }
    if (failures > 0) throw new InvalidInputError(errors);
    return records;
  }
}
