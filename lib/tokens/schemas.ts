import { z } from 'zod';

export const IssueTokenSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the token after where it is used').max(100),
    allRepositories: z.boolean(),
    repositoryIds: z.array(z.string().min(1).max(64)).max(500).default([]),
    // optional expiry; a past date would issue a dead token
    expiresAt: z.coerce
      .date()
      .refine((d) => d.getTime() > Date.now(), 'The expiry must be in the future')
      .optional(),
  })
  .refine((v) => v.allRepositories || v.repositoryIds.length > 0, {
    message: 'Choose at least one repository, or all repositories',
    path: ['repositoryIds'],
  });
export type IssueTokenInput = z.input<typeof IssueTokenSchema>;
