// The grading API's shapes as the pages read them (types only: erased in the browser build).
export type { QueueSummary, QueueDetail, QueueProgress } from '@/lib/grading/queues';
export type { GradingItemView } from '@/lib/grading/item-view';
export type { DisputedItem } from '@/lib/grading/disputes';
export type { QueueAgreement } from '@/lib/grading/queue-stats';
export type { PrecisionRow, Share } from '@/lib/insights/precision';
export type { MyItem } from '@/lib/grading/my-items';
