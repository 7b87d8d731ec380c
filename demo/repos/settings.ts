import type { z } from 'zod';
import { FlowfixFileSchema } from '../../common/settings';

// What the demo writes into each repository's .flowfix.json and into
// Repository.settings: the raw, partial object (common/settings.ts
// merges raw values before applying defaults, so storing parsed defaults in
// the admin column would hide the file's values).

export type DemoRepoSettings = NonNullable<z.input<typeof FlowfixFileSchema>['settings']>;

export function flowfixJson(settings: DemoRepoSettings): string {
  // validate at build time (a demo repository with an unreadable file would
  // silently fall back to defaults), but write what an author would write,
  // not the parsed object with every default filled in
  FlowfixFileSchema.parse({ settings });
  return JSON.stringify({ settings }, null, 2) + '\n';
}
