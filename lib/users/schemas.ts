import { z } from 'zod';
import { isCodeReviewEmail } from '../../common/code-review-identity';
import { Role } from '../generated/prisma/enums';

// Request schemas for the admin's user management, shared by the API routes
// and the admin forms (so the browser shows the same limits the server checks).

export const RoleSchema = z.enum(Role);

export const EmailSchema = z.string().trim().toLowerCase().email('Enter a valid email address').max(320);

// 10 characters: long enough to resist online guessing with scrypt on the other side
export const PasswordSchema = z.string().min(10, 'Passwords need at least 10 characters').max(1024, 'Passwords are at most 1024 characters');

const RolesSchema = z
  .array(RoleSchema)
  .max(Object.values(Role).length)
  .transform((roles) => [...new Set(roles)]);

export const CreateUserSchema = z.object({
  email: EmailSchema.refine((e) => !isCodeReviewEmail(e), 'Addresses under .code-review.invalid belong to code-review identities'),
  name: z.string().trim().min(1, 'Enter a name').max(200),
  password: PasswordSchema,
  roles: RolesSchema,
});
export type CreateUserInput = z.infer<typeof CreateUserSchema>;

export const UpdateUserSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    roles: RolesSchema.optional(),
    disabled: z.boolean().optional(),
    // an admin may set a new password (e.g. for a user who forgot theirs)
    password: PasswordSchema.optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'Nothing to update' });
export type UpdateUserInput = z.infer<typeof UpdateUserSchema>;
