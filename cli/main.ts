import { CliError, defaultIo, UsageError, type CliIo } from './io';
import { FIX_USAGE, fixCommand } from './fix';
import { REPORT_USAGE, reportCommand } from './report';

// `flowfix <command>`: dispatches to the subcommands. Each command answers
// --help itself. Exit codes: 0 ok, 1 failed (server refused, git error), 2
// wrong usage.

const MAIN_USAGE = `flowfix — report failing tests to flowfix and work with its fixes

Usage: flowfix <command> [options]

Commands:
  report   report the failing tests of the current git checkout (as a CI step would)
  repair   run the repair agent on a local checkout
  fix      show a fix, or apply it to your checkout (flowfix fix show|apply ID)

Run "flowfix <command> --help" for a command's options.
`;

const REPAIR_MODULE = new URL('../agent/cli/repair.ts', import.meta.url).href;

type RepairCommand = (argv: string[]) => Promise<number | void>;

async function loadRepair(): Promise<RepairCommand | undefined> {
  try {
    // lazy: the agent and its dependencies load only when someone repairs
    const mod = (await import(REPAIR_MODULE)) as { repairCommand?: RepairCommand };
    return mod.repairCommand;
  } catch (err) {
    const code = (err as { code?: string }).code;
    const url = (err as { url?: string }).url ?? String((err as Error).message);
    if (code === 'ERR_MODULE_NOT_FOUND' && url.includes('agent/cli/repair')) return undefined;
    throw err;
  }
}

async function runRepairCommand(argv: string[], io: CliIo): Promise<number> {
  const repairCommand = await loadRepair();
  if (!repairCommand) {
    io.stderr('flowfix repair is not available in this installation (agent/cli/repair.ts is missing).\n');
    return 1;
  }
  return (await repairCommand(argv)) ?? 0;
}

export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(MAIN_USAGE);
        return command === undefined ? 2 : 0;
      case 'report':
        return await reportCommand(rest, io);
      case 'repair':
        return await runRepairCommand(rest, io);
      case 'fix':
        return await fixCommand(rest, io);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`flowfix: ${err.message}\n\n${command === 'report' ? REPORT_USAGE : command === 'fix' ? FIX_USAGE : MAIN_USAGE}`);
      return 2;
    }
    if (err instanceof CliError) {
      io.stderr(`flowfix ${command}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
