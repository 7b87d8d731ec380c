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
