/**
 * What became of a delivery: the trigger log's `outcome` and the `outcome` label of
 * `pipeline_service_webhook_deliveries_total`. The claim outcomes keep the spec's spelling.
 */
export const DeliveryOutcome = {
  Claimed: 'Claimed',
  AlreadyClaimed: 'AlreadyClaimed',
  Rejected: 'Rejected',
  Failed: 'Failed',
  /** The event matters to nothing. */
  Filtered: 'filtered',
  /** Platform undetected, or a body that could not be read. */
  Invalid: 'invalid',
  /** Signature missing or wrong. */
  Unauthorized: 'unauthorized',
  /** A repeat of a delivery id already being or already claimed. */
  Duplicate: 'duplicate',
  /** The store was not up: the platform redelivers. */
  Skipped: 'skipped',
} as const;
export type DeliveryOutcome = (typeof DeliveryOutcome)[keyof typeof DeliveryOutcome];
