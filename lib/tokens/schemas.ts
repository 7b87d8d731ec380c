import { z } from 'zod';

export const IssueTokenSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the token after where it is used').max(100),
    allRepositories: z.boolean(),
    repositoryIds: z.array(z.string().min(1).max(64)).max(500).default([]),
    // absent: CI_TOKEN_DEFAULT_DAYS from now; null: never (the admin's explicit
    // choice); a past date would issue a dead token
    expiresAt: z.coerce
      .date()
      .refine((d) => d.getTime() > Date.now(), 'The expiry must be in the future')
      .nullable()
      .optional(),
  })
  .refine((v) => v.allRepositories || v.repositoryIds.length > 0, {
    message: 'Choose at least one repository, or all repositories',
    path: ['repositoryIds'],
  });
/** A CI token lives this long unless the admin chooses otherwise: a leaked CI secret does not stay useful forever. */
export const CI_TOKEN_DEFAULT_DAYS = 90;

export type IssueTokenInput = z.input<typeof IssueTokenSchema>;
