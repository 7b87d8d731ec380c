import { z } from 'zod';

// Request bodies of the admin's code-host routes. Secrets arrive here once,
// are encrypted by lib/hosts/service.ts and never leave the server again.

const ApiBaseUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(500);
const Secret = (what: string) => z.string().min(8, `${what} is too short`).max(20_000);

export const RegisterHostSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('GITHUB'),
      name: z.string().trim().min(1).max(100),
      // github.com: https://api.github.com; Enterprise Server: https://HOST/api/v3
      apiBaseUrl: ApiBaseUrl.default('https://api.github.com'),
      appId: z
        .string()
        .trim()
        .regex(/^\d{1,20}$/, 'the App id is a number'),
      appSlug: z.string().trim().max(100).optional(),
      privateKey: Secret('The private key').refine((v) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v), 'must be the App private key in PEM form'),
      webhookSecret: Secret('The webhook secret'),
    })
    .strict(),
  z
    .object({
      kind: z.literal('GITLAB'),
      name: z.string().trim().min(1).max(100),
      // gitlab.com or the self-managed instance's root URL
      apiBaseUrl: ApiBaseUrl.default('https://gitlab.com'),
      token: Secret('The token'),
      webhookSecret: Secret('The webhook secret'),
    })
    .strict(),
]);
export type RegisterHostInput = z.input<typeof RegisterHostSchema>;

const Glob = z.string().trim().min(1).max(200);

export const LinkRepositorySchema = z
  .object({
    // a project from the host's own list (GET /api/admin/hosts/[id]/repositories), never typed
    externalId: z
      .string()
      .trim()
      .regex(/^\d{1,20}$/, 'the host project id is a number'),
    repositoryId: z.string().trim().min(1).max(100),
    artifactName: Glob.optional(),
    junitGlob: Glob.optional(),
  })
  .strict();
export type LinkRepositoryInput = z.input<typeof LinkRepositorySchema>;

/** What processing one delivery (an event, a comment's command) came to: kept on the delivery's row. */
export interface ProcessOutcome {
  status: 'PROCESSED' | 'IGNORED';
  detail: string;
}
