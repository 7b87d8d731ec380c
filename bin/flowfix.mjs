#!/usr/bin/env node
// flowfix command line. The CLI is TypeScript (cli/); tsx compiles it on the
// fly so a checkout works without a build step. Our own tsconfig is named
// explicitly: the CLI usually runs inside someone else's repository, whose
// tsconfig must not change how flowfix's code is compiled.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
