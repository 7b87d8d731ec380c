import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auditCsv, type AuditView } from '../../../lib/audit';

const entry = (over: Partial<AuditView>): AuditView => ({
  id: '7',
  createdAt: new Date('2026-12-01T10:00:00.000Z'),
  actorKind: 'user',
  actor: { id: 'u1', name: 'Ada', email: 'ada@example.test' },
  action: 'auth.signin.failure',
  targetType: 'account',
  targetId: 'ada@example.test',
  targetName: 'ada@example.test',
  data: { reason: 'wrong_password' },
  ...over,
});

test('one row per entry under a header, data as JSON, quoted where CSV needs it', () => {
  assert.equal(
    auditCsv([entry({})]),
    'id,createdAt,actorKind,actorId,actorEmail,action,targetType,targetId,data,targetName\r\n' +
      '7,2026-12-01T10:00:00.000Z,user,u1,ada@example.test,auth.signin.failure,account,ada@example.test,"{""reason"":""wrong_password""}",ada@example.test\r\n',
  );
  assert.equal(
    auditCsv([entry({ actor: null, targetType: null, targetId: null, targetName: null, data: {} })]).split('\r\n')[1],
    '7,2026-12-01T10:00:00.000Z,user,,,auth.signin.failure,,,{},',
  );
});

test('a caller-chosen value that a spreadsheet would run as a formula is defused', () => {
  for (const evil of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)']) {
    const row = auditCsv([entry({ targetId: evil })]).split('\r\n')[1];
    const cell = row.split(',').slice(7).join(',');
    assert.ok(cell.startsWith("'") || cell.startsWith(`"'`), `${evil} → ${cell}`);
    // a name is somebody's choice too (a user's, a token's)
    const named = auditCsv([entry({ targetName: evil, data: {} })]).split('\r\n')[1];
    const last = named.slice(named.indexOf(',{},') + 4);
    assert.ok(last.startsWith("'") || last.startsWith(`"'`), `${evil} → ${last}`);
  }
});
