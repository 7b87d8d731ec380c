import { defineConfig } from 'prisma/config';

// Prisma 7 reads connection details from here, not from schema.prisma. flowfix
// connects through driver adapters (lib/db.ts) and applies migrations with its
// own offline runner (scripts/db.ts), so the CLI is used only to generate the
// client and to validate/format the schema.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
