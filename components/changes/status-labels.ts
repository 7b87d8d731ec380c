import { CHANGE_STATUS_LABELS } from '@/common/labels';

/** A change's status in words (common/labels.ts). */
export const STATUS_LABELS = CHANGE_STATUS_LABELS;

/** Age filter presets: label → minAge/maxAge as the URL carries them. */
export const AGE_PRESETS = [
  { value: '', label: 'Any age', minAge: undefined, maxAge: undefined },
  { value: 'lt1h', label: 'Last hour', minAge: undefined, maxAge: '1h' },
  { value: 'lt24h', label: 'Last 24 hours', minAge: undefined, maxAge: '24h' },
  { value: 'lt7d', label: 'Last 7 days', minAge: undefined, maxAge: '7d' },
  { value: 'lt30d', label: 'Last 30 days', minAge: undefined, maxAge: '30d' },
  { value: 'gt7d', label: 'Older than 7 days', minAge: '7d', maxAge: undefined },
  { value: 'gt30d', label: 'Older than 30 days', minAge: '30d', maxAge: undefined },
] as const;
