import { z } from 'zod';
import { writeAudit } from '../audit';
import { getDb } from '../db';
import type { SandboxMode } from './mode';
import { probeSandbox, type SandboxProbe } from './probe';

// The stored sandbox mode (SystemSetting "sandboxMode"). "sandboxed", the
// default and the value when no row exists: no repository command runs
// without a working sandbox, and a run on a machine without one ends at once
// as `sandbox_unavailable`. "unsafe": an admin's explicit, audited choice to
// run repairs without the sandbox when it does not work; every page shows it
// in red while it is on.

const KEY = 'sandboxMode';

export const SandboxModeSchema = z.enum(['sandboxed', 'unsafe']);
export const SetSandboxModeSchema = z.object({ mode: SandboxModeSchema }).strict();

export async function readSandboxMode(): Promise<SandboxMode> {
  const row = await getDb().systemSetting.findUnique({ where: { key: KEY } });
  const parsed = SandboxModeSchema.safeParse(row?.value);
  return parsed.success ? parsed.data : 'sandboxed';
}

export interface SandboxStatus {
  mode: SandboxMode;
  probe: SandboxProbe;
}

/** The stored mode and whether this machine's sandbox works (probed once per process). */
export async function sandboxStatus(): Promise<SandboxStatus> {
  return { mode: await readSandboxMode(), probe: probeSandbox() };
}

export async function setSandboxMode(input: { actorId: string; mode: SandboxMode }): Promise<SandboxStatus> {
  const db = getDb();
  await db.$transaction(async (tx) => {
    const before = await tx.systemSetting.findUnique({ where: { key: KEY } });
    await tx.systemSetting.upsert({
      where: { key: KEY },
      create: { key: KEY, value: input.mode, updatedById: input.actorId },
      update: { value: input.mode, updatedById: input.actorId },
    });
    await writeAudit(
      {
        actorId: input.actorId,
        actorKind: 'user',
        action: 'system.sandbox_mode',
        targetType: 'system_setting',
        targetId: KEY,
        data: { from: SandboxModeSchema.safeParse(before?.value).data ?? 'sandboxed', to: input.mode },
      },
      tx,
    );
  });
  return sandboxStatus();
}
