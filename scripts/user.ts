// Creates a user from the command line: how a real install gets its first
// admin (the admin page needs an admin to reach it). Runs against the
// configured database; in embedded mode stop the server first (one process
// owns the PGlite folder).
//
//   npm run user:create -- --email ana@example.com --name "Ana" --roles admin,reviewer
//   (the password is read from FLOWFIX_NEW_USER_PASSWORD or prompted on the terminal)

import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { closeDb, getDbHandle } from '../lib/db';
import { applyMigrations } from './db/migrate';
import { createUser } from '../lib/users/service';
import { CreateUserSchema } from '../lib/users/schemas';
import { toHttpError } from '../lib/errors';

const USAGE = 'usage: npm run user:create -- --email EMAIL --name NAME --roles admin[,reviewer,grader,manager]';

async function readPassword(): Promise<string> {
  // the one place a script reads a variable of its own: a secret must not sit in argv
  const fromEnv = process.env.FLOWFIX_NEW_USER_PASSWORD;
  if (fromEnv) return fromEnv;
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await rl.question('Password (10+ characters): ');
  } finally {
    rl.close();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { email: { type: 'string' }, name: { type: 'string' }, roles: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || !values.email || !values.name || !values.roles) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const input = CreateUserSchema.parse({
    email: values.email,
    name: values.name,
    roles: values.roles.split(',').map((r) => r.trim().toUpperCase()),
    password: await readPassword(),
  });
  await applyMigrations({ handle: getDbHandle() });
  const user = await createUser({ actorId: null, input });
  process.stdout.write(`created ${user.email} with roles ${user.roles.join(', ').toLowerCase()}\n`);
  return 0;
}

main()
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (err) => {
    const { body } = toHttpError(err);
    process.stderr.write(`flowfix: ${body.error.message}${body.error.details ? ` ${JSON.stringify(body.error.details)}` : ''}\n`);
    await closeDb();
    process.exit(1);
  });
