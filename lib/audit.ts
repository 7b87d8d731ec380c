import type { Prisma } from './generated/prisma/client';
import { getDb } from './db';

export interface AuditEntry {
  actorId?: string | null;
  actorKind: 'user' | 'token' | 'system';
  action: string;
  targetType?: string;
  targetId?: string;
  data?: Prisma.InputJsonValue;
}

type AuditWriter = Pick<Prisma.TransactionClient, 'auditLog'>;

/**
 * Who acted, for an admin-facing service that may also be called by a script
 * or the seed without a signed-in user: that user, else the system.
 */
export function actorFrom(actorId: string | null | undefined): Pick<AuditEntry, 'actorId' | 'actorKind'> {
  return actorId ? { actorId, actorKind: 'user' } : { actorId: null, actorKind: 'system' };
}

/** Appends to the audit log; pass `tx` to make the entry part of the action's transaction. */
export async function writeAudit(entry: AuditEntry, tx?: AuditWriter): Promise<void> {
  await (tx ?? getDb()).auditLog.create({
    data: {
      actorId: entry.actorId ?? null,
      actorKind: entry.actorKind,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      data: entry.data ?? {},
    },
  });
}
