import { z } from 'zod';
import { TEST_ID_MAX_CHARS } from '../junit/test-id';
import { capChars } from '../../common/text';

// The body of POST /api/v1/failures. JSON bodies carry it whole; multipart
// bodies carry it in the `metadata` part, with JUnit reports and the log as
// file parts. Strings reach this schema already cleaned (lib/ingest/text.ts).
//
// Fields that take part in unique indexes (externalId, headRev, testId) are
// bounded: a PostgreSQL btree entry cannot exceed about 2.7 kB.

export const INGEST_LIMITS = {
  /** per-failure assertion message */
  messageChars: 8 * 1024,
  /** per-failure stack trace + captured output */
  excerptChars: 64 * 1024,
  /** change description (pull-request bodies can be long) */
  descriptionChars: 64 * 1024,
  /** failures stored per revision; a broken build can fail thousands of tests */
  failuresPerRevision: 2_000,
  /** JSON test entries accepted in one request */
  jsonTests: 20_000,
  testIdChars: TEST_ID_MAX_CHARS,
  testNameChars: 2_000,
  pathChars: 1_000,
} as const;

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2_000);

// a revision id: a git sha, a Mercurial/Perforce id, a tag — no whitespace
const RevSchema = z.string().trim().min(1).max(200).regex(/^\S+$/, 'must not contain whitespace');

export const ChangeInputSchema = z.object({
  externalId: z.string().trim().min(1).max(200),
  title: z.string().trim().min(1).max(1_000),
  description: z
    .string()
    .default('')
    .transform((s) => capChars(s, INGEST_LIMITS.descriptionChars)),
  author: z.string().trim().min(1).max(200),
  authorEmail: z.string().trim().max(320).optional(),
  // when absent it is inferred from the name (dependabot[bot], renovate…)
  authorKind: z.enum(['human', 'bot']).optional(),
  branch: z.string().trim().min(1).max(500),
  url: httpUrl.optional(),
  // a draft pull (merge) request (the draft pre-filter); absent: left as last recorded
  draft: z.boolean().optional(),
});

export const TestInputSchema = z.object({
  id: z.string().trim().min(1).max(20_000).optional(),
  name: z.string().trim().min(1).max(20_000),
  classname: z.string().max(20_000).optional(),
  file: z.string().max(20_000).optional(),
  line: z.number().int().min(0).optional(),
  message: z.string().optional(),
  details: z.string().optional(),
  durationMs: z
    .number()
    .min(0)
    .transform((n) => Math.round(n))
    .optional(),
  kind: z.enum(['failure', 'error']).optional(),
});

export const DiffStatSchema = z.object({
  files: z.number().int().min(0),
  additions: z.number().int().min(0),
  deletions: z.number().int().min(0),
});

export const IngestMetadataSchema = z.object({
  repository: z.string().trim().min(1).max(200),
  change: ChangeInputSchema,
  baseRev: RevSchema,
  headRev: RevSchema,
  // committer date of the head revision: lets a late report of an older
  // revision be recognised so it cannot roll the change back
  headCommittedAt: z.iso.datetime({ offset: true }).optional(),
  diffStat: DiffStatSchema.optional(),
  junit: z.union([z.string(), z.array(z.string()).max(100)]).optional(),
  tests: z.array(TestInputSchema).max(INGEST_LIMITS.jsonTests).optional(),
  log: z.string().optional(),
  ciUrl: httpUrl.optional(),
  // the CLI says so; anything else is a CI system
  origin: z.enum(['ci', 'cli']).default('ci'),
});

export type IngestMetadata = z.infer<typeof IngestMetadataSchema>;
export type TestInput = z.infer<typeof TestInputSchema>;
