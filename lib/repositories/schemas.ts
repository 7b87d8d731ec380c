import { z } from 'zod';
import { LanguageSchema } from '../../common/settings';

// Request schemas for registering and editing repositories. The three JSON
// columns arrive as objects and are checked against their own schemas in
// service.ts (validateSettingsObject), which also refuses unknown keys.

/** "shop", "acme/web", "py-utils": shown in the UI and sent by CI as `repository`. */
export const RepositoryNameSchema = z
  .string()
  .trim()
  .min(1, 'Enter a name')
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'Letters, digits, ".", "_", "-" and "/" only, starting with a letter or digit')
  .refine((v) => !v.split('/').some((seg) => seg === '' || seg === '.' || seg === '..'), 'No empty, "." or ".." segments');

/**
 * Where the server clones from and pushes to: an absolute local path, a
 * file/http(s)/ssh/git URL, or scp-like user@host:path. Never starting with
 * "-" (it would be read as a git option) and no whitespace or control characters.
 */
export const GitLocationSchema = z
  .string()
  .trim()
  .min(1, 'Enter where the git repository lives')
  .max(2000)
  .refine((v) => !/[\s\u0000-\u001f\u007f]/.test(v), 'No spaces or control characters')
  .refine(
    (v) => v.startsWith('/') || /^(file|https?|ssh|git):\/\/[^\s]+$/i.test(v) || /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/.test(v),
    'Use an absolute path, a file://, https://, ssh:// or git:// URL, or user@host:path',
  );

/** A branch name git would accept (git check-ref-format, the common rules). */
export const BranchNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._/-]+$/, 'Letters, digits, ".", "_", "-" and "/" only')
  .refine(
    (v) => !v.startsWith('-') && !v.startsWith('/') && !v.endsWith('/') && !v.endsWith('.') && !v.endsWith('.lock') && !v.includes('..') && !v.includes('//'),
    'Not a valid branch name',
  );

const JsonObjectSchema = z.record(z.string(), z.unknown());

export const RegisterRepositorySchema = z
  .object({
    name: RepositoryNameSchema,
    gitUrl: GitLocationSchema,
    defaultBranch: BranchNameSchema.default('main'),
    language: LanguageSchema.default('typescript'),
    settings: JsonObjectSchema.default({}),
    filterPolicy: JsonObjectSchema.default({}),
    modelSettings: JsonObjectSchema.default({}),
  })
  .strict();
export type RegisterRepositoryInput = z.input<typeof RegisterRepositorySchema>;

export const UpdateRepositorySchema = z
  .object({
    name: RepositoryNameSchema.optional(),
    gitUrl: GitLocationSchema.optional(),
    defaultBranch: BranchNameSchema.optional(),
    language: LanguageSchema.optional(),
    settings: JsonObjectSchema.optional(),
    filterPolicy: JsonObjectSchema.optional(),
    modelSettings: JsonObjectSchema.optional(),
    archived: z.boolean().optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' });
export type UpdateRepositoryInput = z.input<typeof UpdateRepositorySchema>;
