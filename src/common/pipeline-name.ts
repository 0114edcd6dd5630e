/** Built-in pipelines named by the spec. Operators add command pipelines under `pipelines:`. */
export const BuiltInPipeline = {
  Code: 'code',
  SecurityScan: 'security-scan',
  PrReview: 'pr-review',
} as const;
export type BuiltInPipeline = (typeof BuiltInPipeline)[keyof typeof BuiltInPipeline];
export const BUILT_IN_PIPELINES: readonly string[] = Object.values(BuiltInPipeline);
