// Catalog compaction: transforms of a whole tool catalog as JSON text, from any source.
export { stripAnnotations, ANNOTATION_KEYWORDS, type StripAnnotationsReport } from "./strip-annotations.ts";
export { stripAnnotationBytes, BYTE_STRIP_KEYWORDS, type RemovedSpan, type StripAnnotationBytesReport } from "./strip-annotation-bytes.ts";
export { reduceDescriptions, reduceDescription, type ReduceDescriptionsOptions, type ReduceDescriptionsReport } from "./reduce-descriptions.ts";
export { splitSentences, statesConstraint, CONSTRAINT_PATTERN } from "./description-sentences.ts";
export type { CompactionMethod, CompactionOptions, CompactionReport, CompactionResult } from "./compaction-report.ts";
