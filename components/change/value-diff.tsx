// Expected against actual, as a tiny diff: one line each with the differing
// middle marked (common prefix and suffix left plain), or line by line for
// multi-line values. Text only: values come from test output.

function splitCommon(a: string, b: string): [string, string, string, string] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return [a.slice(0, start), a.slice(start, a.length - end), b.slice(start, b.length - end), a.slice(a.length - end)];
}

function Line({ sign, prefix, middle, suffix }: { sign: '-' | '+'; prefix: string; middle: string; suffix: string }) {
  return (
    <div className={`value-diff-line value-diff-${sign === '-' ? 'expected' : 'actual'}`}>
      <span className="value-diff-sign" aria-hidden>
        {sign}
      </span>
      <span className="value-diff-label">{sign === '-' ? 'expected' : 'actual'}</span>
      <code>
        {prefix}
        {middle && <mark>{middle}</mark>}
        {suffix}
      </code>
    </div>
  );
}

export function ValueDiff({ expected, actual, operator }: { expected: string; actual: string; operator: string | null }) {
  const multiline = expected.includes('\n') || actual.includes('\n');
  if (multiline) {
    const exp = expected.split('\n');
    const act = actual.split('\n');
    return (
      <div className="value-diff" data-testid="value-diff">
        {exp.map((l, i) => (act[i] === l ? null : <Line key={`e${i}`} sign="-" prefix="" middle={l} suffix="" />))}
        {act.map((l, i) => (exp[i] === l ? null : <Line key={`a${i}`} sign="+" prefix="" middle={l} suffix="" />))}
      </div>
    );
  }
  const [prefix, e, a, suffix] = splitCommon(expected, actual);
  return (
    <div className="value-diff" data-testid="value-diff" title={operator ? `operator: ${operator}` : undefined}>
      <Line sign="-" prefix={prefix} middle={e} suffix={suffix} />
      <Line sign="+" prefix={prefix} middle={a} suffix={suffix} />
    </div>
  );
}
