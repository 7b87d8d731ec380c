import type { z } from 'zod';
import { getDb } from '../db';
import { actorFrom, writeAudit } from '../audit';
import { AppError, isUniqueViolation } from '../errors';
import type { Prisma } from '../generated/prisma/client';
import { FilterPolicySchema, ModelSettingsSchema, RepositorySettingsSchema } from '../../common/settings';
import { RegisterRepositorySchema, UpdateRepositorySchema, type RegisterRepositoryInput, type UpdateRepositoryInput } from './schemas';

// Registering, editing and archiving repositories (admin only). The JSON
// columns store what the admin actually set, validated but WITHOUT the
// schema defaults filled in: resolveEffectiveSettings (settings.ts) merges the
// admin's values over the repository's .flowfix.json, and a stored default
// would hide a value the file sets.

type Json = Record<string, unknown>;

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Keys present in `raw` but dropped by the schema (unknown settings, typos). */
function unknownKeys(raw: unknown, parsed: unknown, path: string[] = []): string[] {
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return [];
  return Object.keys(raw).flatMap((key) => (key in parsed ? unknownKeys(raw[key], parsed[key], [...path, key]) : [[...path, key].join('.')]));
}

/** The admin's own values, normalised by the schema (trimmed strings...), without defaults. */
function providedOnly(raw: unknown, parsed: unknown): unknown {
  if (!isPlainObject(raw) || !isPlainObject(parsed)) return parsed;
  return Object.fromEntries(Object.keys(raw).map((key) => [key, providedOnly(raw[key], parsed[key])]));
}

/**
 * Checks a settings object against its schema (422 with paths on error, unknown
 * keys included) and returns the value to store: the provided keys only.
 */
export function validateSettingsObject({
  schema,
  value,
  field,
}: {
  schema: z.ZodType;
  value: Json;
  field: 'settings' | 'filterPolicy' | 'modelSettings';
}): Prisma.InputJsonObject {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('validation', `Invalid ${field}`, {
      details: result.error.issues.map((i) => ({ path: [field, ...i.path.map(String)].join('.'), message: i.message })),
      cause: result.error,
    });
  }
  const unknown = unknownKeys(value, result.data);
  if (unknown.length > 0) {
    throw new AppError('validation', `Unknown ${field} keys: ${unknown.join(', ')}`, {
      details: unknown.map((p) => ({ path: `${field}.${p}`, message: 'Unknown setting' })),
    });
  }
  return providedOnly(value, result.data) as Prisma.InputJsonObject;
}

const REPO_SELECT = {
  id: true,
  name: true,
  gitUrl: true,
  defaultBranch: true,
  language: true,
  settings: true,
  filterPolicy: true,
  modelSettings: true,
  archivedAt: true,
  createdAt: true,
  updatedAt: true,
  _count: { select: { changes: true } },
} as const;

type SelectedRepo = Prisma.RepositoryGetPayload<{ select: typeof REPO_SELECT }>;

export interface RepositoryView {
  id: string;
  name: string;
  gitUrl: string;
  defaultBranch: string;
  language: string;
  /** as stored: what the admin set */
  settings: Json;
  filterPolicy: Json;
  modelSettings: Json;
  /** with defaults filled in, or null when the stored value no longer validates */
  effective: { settings: Json; filterPolicy: Json; modelSettings: Json } | null;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  changeCount: number;
}

function toView(r: SelectedRepo): RepositoryView {
  const settings = isPlainObject(r.settings) ? r.settings : {};
  const filterPolicy = isPlainObject(r.filterPolicy) ? r.filterPolicy : {};
  const modelSettings = isPlainObject(r.modelSettings) ? r.modelSettings : {};
  const parsed = [
    RepositorySettingsSchema.safeParse(settings),
    FilterPolicySchema.safeParse(filterPolicy),
    ModelSettingsSchema.safeParse(modelSettings),
  ] as const;
  return {
    id: r.id,
    name: r.name,
    gitUrl: r.gitUrl,
    defaultBranch: r.defaultBranch,
    language: r.language,
    settings,
    filterPolicy,
    modelSettings,
    effective:
      parsed[0].success && parsed[1].success && parsed[2].success
        ? { settings: parsed[0].data as Json, filterPolicy: parsed[1].data as Json, modelSettings: parsed[2].data as Json }
        : null,
    archivedAt: r.archivedAt,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    changeCount: r._count.changes,
  };
}

export async function listRepositories({ includeArchived = true }: { includeArchived?: boolean } = {}): Promise<RepositoryView[]> {
  const rows = await getDb().repository.findMany({
    where: includeArchived ? undefined : { archivedAt: null },
    select: REPO_SELECT,
    orderBy: [{ archivedAt: { sort: 'desc', nulls: 'first' } }, { name: 'asc' }],
  });
  return rows.map(toView);
}

export async function getRepository({ id }: { id: string }): Promise<RepositoryView> {
  const row = await getDb().repository.findUnique({ where: { id }, select: REPO_SELECT });
  if (!row) throw new AppError('not_found', 'No such repository');
  return toView(row);
}

function nameConflict(name: string | undefined, err: unknown): AppError {
  return new AppError('conflict', `A repository named ${name ?? 'that'} already exists`, { cause: err });
}

export async function registerRepository({ actorId, input }: { actorId: string | null; input: RegisterRepositoryInput }): Promise<RepositoryView> {
  const data = RegisterRepositorySchema.parse(input);
  // the language lives in a column (for lists and filters) and in settings (for
  // the run); the form's value wins so the two never disagree
  const settings = validateSettingsObject({
    schema: RepositorySettingsSchema,
    value: { ...data.settings, language: data.language },
    field: 'settings',
  });
  const filterPolicy = validateSettingsObject({ schema: FilterPolicySchema, value: data.filterPolicy, field: 'filterPolicy' });
  const modelSettings = validateSettingsObject({ schema: ModelSettingsSchema, value: data.modelSettings, field: 'modelSettings' });
  try {
    return await getDb().$transaction(async (tx) => {
      const repo = await tx.repository.create({
        data: {
          name: data.name,
          gitUrl: data.gitUrl,
          defaultBranch: data.defaultBranch,
          language: data.language,
          settings,
          filterPolicy,
          modelSettings,
        },
        select: REPO_SELECT,
      });
      await writeAudit(
        {
          ...actorFrom(actorId),
          action: 'repository.register',
          targetType: 'repository',
          targetId: repo.id,
          data: { name: repo.name, gitUrl: repo.gitUrl, defaultBranch: repo.defaultBranch, language: repo.language },
        },
        tx,
      );
      return toView(repo);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameConflict(data.name, err);
    throw err;
  }
}

export async function updateRepository({ actorId, id, input }: { actorId: string | null; id: string; input: UpdateRepositoryInput }): Promise<RepositoryView> {
  const patch = UpdateRepositorySchema.parse(input);
  try {
    return await getDb().$transaction(async (tx) => {
      const current = await tx.repository.findUnique({ where: { id }, select: REPO_SELECT });
      if (!current) throw new AppError('not_found', 'No such repository');
      const language = patch.language ?? current.language;
      const storedSettings = isPlainObject(current.settings) ? current.settings : {};
      const settings =
        patch.settings !== undefined || patch.language !== undefined
          ? validateSettingsObject({
              schema: RepositorySettingsSchema,
              value: { ...(patch.settings ?? storedSettings), language },
              field: 'settings',
            })
          : undefined;
      const filterPolicy = patch.filterPolicy
        ? validateSettingsObject({ schema: FilterPolicySchema, value: patch.filterPolicy, field: 'filterPolicy' })
        : undefined;
      const modelSettings = patch.modelSettings
        ? validateSettingsObject({ schema: ModelSettingsSchema, value: patch.modelSettings, field: 'modelSettings' })
        : undefined;
      const archivedAt = patch.archived === undefined ? undefined : patch.archived ? (current.archivedAt ?? new Date()) : null;

      const updated = await tx.repository.update({
        where: { id },
        data: {
          name: patch.name,
          gitUrl: patch.gitUrl,
          defaultBranch: patch.defaultBranch,
          language: patch.language,
          settings,
          filterPolicy,
          modelSettings,
          archivedAt,
        },
        select: REPO_SELECT,
      });
      const changed = (['name', 'gitUrl', 'defaultBranch', 'language', 'settings', 'filterPolicy', 'modelSettings'] as const).filter(
        (k) => JSON.stringify(current[k]) !== JSON.stringify(updated[k]),
      );
      const archiveAction =
        patch.archived === undefined || (current.archivedAt !== null) === patch.archived
          ? null
          : patch.archived
            ? 'repository.archive'
            : 'repository.unarchive';
      if (changed.length > 0) {
        await writeAudit(
          {
            ...actorFrom(actorId),
            action: 'repository.update',
            targetType: 'repository',
            targetId: id,
            data: {
              changed,
              ...Object.fromEntries(
                (['name', 'gitUrl', 'defaultBranch', 'language'] as const)
                  .filter((k) => changed.includes(k))
                  .map((k) => [k, { from: current[k], to: updated[k] }]),
              ),
            },
          },
          tx,
        );
      }
      if (archiveAction) {
        await writeAudit({ ...actorFrom(actorId), action: archiveAction, targetType: 'repository', targetId: id, data: { name: updated.name } }, tx);
      }
      return toView(updated);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw nameConflict(patch.name, err);
    throw err;
  }
}

/** Archiving keeps history (changes, fixes, metrics) but refuses new reports and new token scopes. */
export function setRepositoryArchived({ actorId, id, archived }: { actorId: string | null; id: string; archived: boolean }): Promise<RepositoryView> {
  return updateRepository({ actorId, id, input: { archived } });
}
