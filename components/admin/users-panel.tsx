'use client';

import { useState, type FormEvent } from 'react';
import { describeError } from './api';
import { formatAgo, formatDateTime } from '@/common/format';
import { ROLES, ROLE_HELP, type AdminUser, type RoleName } from './types';
import { useAdminUsers, useCreateUser, useUnlockUser, useUpdateUser } from './use-admin-users';
import { DataTable } from '@/components/data-table';

function RoleCheckboxes({
  value,
  onChange,
  lockAdmin,
  idPrefix,
}: {
  value: RoleName[];
  onChange: (roles: RoleName[]) => void;
  /** your own ADMIN role cannot be removed */
  lockAdmin?: boolean;
  idPrefix: string;
}) {
  return (
    <div className="admin-roles">
      {ROLES.map((role) => {
        const locked = lockAdmin && role === 'ADMIN';
        return (
          <label key={role} className="admin-check" title={locked ? 'You cannot remove your own admin role' : ROLE_HELP[role]}>
            <input
              type="checkbox"
              checked={value.includes(role)}
              disabled={locked}
              onChange={(e) => onChange(e.target.checked ? [...value, role] : value.filter((r) => r !== role))}
              data-testid={`${idPrefix}-role-${role.toLowerCase()}`}
            />
            {role.toLowerCase()}
          </label>
        );
      })}
    </div>
  );
}

function CreateUserForm({ onDone, onCreated }: { onDone: () => void; onCreated: (user: AdminUser) => void }) {
  const create = useCreateUser();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  // no role ticked for the admin: a role is a grant, chosen on purpose
  const [roles, setRoles] = useState<RoleName[]>([]);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    create.mutate({ email, name, password, roles }, { onSuccess: onCreated });
  }

  return (
    <form className="card stack" onSubmit={onSubmit} data-testid="user-create-form">
      <h3 className="card-title">New user</h3>
      <div className="admin-form-grid">
        <label className="field">
          Email
          <input className="input" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} data-testid="user-email" />
        </label>
        <label className="field">
          Name
          <input className="input" required value={name} onChange={(e) => setName(e.target.value)} data-testid="user-name" />
        </label>
        <label className="field">
          Initial password
          <input
            className="input"
            type="password"
            autoComplete="new-password"
            minLength={10}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            data-testid="user-password"
          />
          <span className="muted small">At least 10 characters. Share it privately; the user can be given a new one later.</span>
        </label>
        <div className="field">
          Roles
          <RoleCheckboxes value={roles} onChange={setRoles} idPrefix="user-create" />
          {roles.length === 0 && (
            <span className="muted small" data-testid="user-create-no-role">
              No role chosen: the user can sign in but sees nothing until given one.
            </span>
          )}
        </div>
      </div>
      {create.isError && (
        <div className="alert alert-error" role="alert" data-testid="user-create-error">
          {describeError(create.error)}
        </div>
      )}
      <div className="row">
        <button className="btn btn-primary" type="submit" disabled={create.isPending} data-testid="user-create-submit">
          {create.isPending ? 'Creating…' : 'Create user'}
        </button>
        <button className="btn" type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function UserRow({ user, isSelf }: { user: AdminUser; isSelf: boolean }) {
  const update = useUpdateUser();
  const unlock = useUnlockUser();
  const [editing, setEditing] = useState(false);
  const [roles, setRoles] = useState<RoleName[]>(user.roles);
  const [newPassword, setNewPassword] = useState('');
  const disabled = user.disabledAt !== null;

  function startEdit() {
    setRoles(user.roles);
    setNewPassword('');
    update.reset();
    setEditing(true);
  }

  function save() {
    update.mutate({ id: user.id, roles, ...(newPassword ? { password: newPassword } : {}) }, { onSuccess: () => setEditing(false) });
  }

  return (
    <>
      <tr data-testid="user-row" data-email={user.email} className={disabled ? 'admin-row-muted' : undefined}>
        <td>
          <div className="admin-strong">
            {user.name} {isSelf && <span className="badge">you</span>}
          </div>
          <div className="muted small mono">{user.email}</div>
        </td>
        <td data-testid="user-roles">
          {user.roles.length === 0 ? (
            <span className="muted">no role</span>
          ) : (
            <div className="row">
              {user.roles.map((r) => (
                <span key={r} className="badge admin-role-badge">
                  {r.toLowerCase()}
                </span>
              ))}
            </div>
          )}
        </td>
        <td>
          {disabled ? (
            <span className="badge badge-rejected" data-testid="user-status">
              disabled
            </span>
          ) : (
            <span className="badge badge-applied" data-testid="user-status">
              active
            </span>
          )}
          <div className="muted small">{user.oidc ? 'single sign-on' : user.hasPassword ? 'password' : 'no password'}</div>
          {user.lockedUntil && (
            <div className="small" data-testid="user-locked" title="Too many failed sign-ins">
              <span className="badge badge-rejected">locked</span> until {formatDateTime(user.lockedUntil)}
            </div>
          )}
        </td>
        <td className="muted small">{formatAgo(user.lastSignInAt)}</td>
        <td className="admin-actions">
          <button className="btn btn-small" type="button" onClick={startEdit} disabled={editing} data-testid="user-edit">
            Edit
          </button>
          {user.lockedUntil && (
            <button className="btn btn-small" type="button" disabled={unlock.isPending} onClick={() => unlock.mutate(user.id)} data-testid="user-unlock">
              {unlock.isPending ? 'Unlocking…' : 'Unlock'}
            </button>
          )}
          {!isSelf && (
            <button
              className={`btn btn-small ${disabled ? '' : 'btn-danger'}`}
              type="button"
              disabled={update.isPending}
              onClick={() => update.mutate({ id: user.id, disabled: !disabled })}
              data-testid={disabled ? 'user-enable' : 'user-disable'}
            >
              {disabled ? 'Enable' : 'Disable'}
            </button>
          )}
        </td>
      </tr>
      {(editing || (update.isError && !editing) || unlock.isError) && (
        <tr className="admin-edit-row">
          <td colSpan={5}>
            {editing && (
              <div className="stack">
                <div className="field">
                  Roles
                  <RoleCheckboxes value={roles} onChange={setRoles} lockAdmin={isSelf} idPrefix="user-edit" />
                </div>
                <label className="field admin-narrow">
                  New password (optional)
                  <input
                    className="input"
                    type="password"
                    autoComplete="new-password"
                    minLength={10}
                    value={newPassword}
                    onChange={(e) => setNewPassword(e.target.value)}
                    data-testid="user-edit-password"
                  />
                </label>
                <div className="row">
                  <button className="btn btn-primary btn-small" type="button" onClick={save} disabled={update.isPending} data-testid="user-save">
                    Save
                  </button>
                  <button className="btn btn-small" type="button" onClick={() => setEditing(false)}>
                    Cancel
                  </button>
                </div>
              </div>
            )}
            {unlock.isError && (
              <div className="alert alert-error" role="alert" data-testid="user-unlock-error">
                {describeError(unlock.error)}
              </div>
            )}
            {update.isError && (
              <div className="alert alert-error" role="alert" data-testid="user-update-error">
                {describeError(update.error)}
              </div>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

// the users query's loading and error states are shown by the people's table above
const LOADED = { isPending: false, isError: false, error: null } as const;

/**
 * The identities `/flowfix apply|reject` in a pull (merge) request decide as:
 * listed apart, read-only, because they are records of a code host's users,
 * not accounts (no role, no password, never signs in).
 */
function CodeReviewIdentities({ users }: { users: AdminUser[] }) {
  return (
    <details className="card" data-testid="admin-code-review-users">
      <summary>
        Code-review identities ({users.length}): code host users who decided with <code>/flowfix apply</code> or <code>/flowfix reject</code>
      </summary>
      <p className="muted small">
        Recorded as the author of those decisions. They have no role and no password and cannot sign in; they are never offered as graders.
      </p>
      <DataTable label="Code-review identities" headers={['Identity', 'Code host', 'First seen']} query={LOADED} rows={users} loading="Loading users…">
        {(u) => (
          <tr key={u.id} data-testid="code-review-user-row" data-email={u.email}>
            <td>
              <div className="admin-strong">{u.name}</div>
              <div className="muted small mono">{u.email}</div>
            </td>
            <td>
              <span className="badge" data-testid="code-review-user-label">
                code review · {u.codeReviewHost ?? 'code host'} · cannot sign in
              </span>
            </td>
            <td className="muted small">{formatAgo(u.createdAt)}</td>
          </tr>
        )}
      </DataTable>
    </details>
  );
}

export function UsersPanel({ currentUserId }: { currentUserId: string }) {
  const users = useAdminUsers();
  const [creating, setCreating] = useState(false);
  // the user just created, said above the table until dismissed or another is created
  const [created, setCreated] = useState<AdminUser | null>(null);
  const people = users.data?.filter((u) => u.kind !== 'CODE_REVIEW');
  const codeReview = users.data?.filter((u) => u.kind === 'CODE_REVIEW') ?? [];

  return (
    <section className="stack" data-testid="admin-users">
      <div className="toolbar">
        <p className="muted admin-lead">People who can sign in, and what each may do. Changes take effect on their next request.</p>
        <button
          className="btn btn-primary"
          type="button"
          onClick={() => {
            setCreated(null);
            setCreating(true);
          }}
          disabled={creating}
          data-testid="user-new"
        >
          New user
        </button>
      </div>
      {created && (
        <div className="alert alert-ok admin-created" role="status" data-testid="user-created">
          <span>
            Created <strong>{created.name}</strong> ({created.email}){' '}
            {created.roles.length === 0 ? (
              <>with no role: they can sign in but see nothing until given one.</>
            ) : (
              <>
                with the {created.roles.length === 1 ? 'role' : 'roles'}{' '}
                <strong>
                  {ROLES.filter((r) => created.roles.includes(r))
                    .map((r) => r.toLowerCase())
                    .join(', ')}
                </strong>
                . They sign in with the initial password you chose.
              </>
            )}
          </span>
          <button className="btn btn-small" type="button" onClick={() => setCreated(null)} data-testid="user-created-dismiss">
            Dismiss
          </button>
        </div>
      )}
      {creating && (
        <CreateUserForm
          onDone={() => setCreating(false)}
          onCreated={(user) => {
            setCreating(false);
            setCreated(user);
          }}
        />
      )}
      <DataTable label="Users" headers={['User', 'Roles', 'Status', 'Last sign-in', '']} query={users} rows={people} loading="Loading users…">
        {(u) => <UserRow key={u.id} user={u} isSelf={u.id === currentUserId} />}
      </DataTable>
      {codeReview.length > 0 && <CodeReviewIdentities users={codeReview} />}
    </section>
  );
}
