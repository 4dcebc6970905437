import type { Pass } from '@app/passes';

/** A condition on `holder h` with named parameters, for TypeORM's query builder. */
export interface HolderCondition {
  sql: string;
  parameters: Record<string, unknown>;
}

/**
 * Narrows the holder list to a segment of the pass (`GET …/holders?segmentId=`): segments are
 * the audiences' and their conditions compile there, above this library, so the audiences
 * provide this under {@link HOLDER_SEGMENT_FILTER} and the holders never import them.
 */
export interface HolderSegmentFilter {
  /** The segment's condition as it reads now; 404 when the pass has no such segment. */
  segmentCondition(workspaceId: string, pass: Pass, segmentId: string): Promise<HolderCondition>;
}

export const HOLDER_SEGMENT_FILTER = Symbol('HOLDER_SEGMENT_FILTER');
