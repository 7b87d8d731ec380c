import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitizeHtml } from '@/lib/html/sanitize';

describe('sanitizeHtml (allow-list)', () => {
  test('keeps the allowed formatting tags', () => {
    const html =
      '<p>Root cause: <code>total()</code> used <em>&lt;</em> not <strong>&lt;=</strong>.</p>' +
      '<pre><code>a &lt;= b</code></pre><ul><li>one</li></ul><ol><li>two</li></ol>line<br>next';
    assert.equal(sanitizeHtml(html), html.replace('<br>', '<br />'));
  });

  test('drops script elements together with their content', () => {
    const out = sanitizeHtml('<p>ok</p><script>alert(document.cookie)</script>');
    assert.equal(out, '<p>ok</p>');
  });

  test('strips event-handler attributes such as onerror', () => {
    const out = sanitizeHtml('<p onclick="x()">hi</p><img src="x" onerror="alert(1)">');
    assert.equal(out, '<p>hi</p>');
  });

  test('removes javascript: and data: URLs but keeps the link text', () => {
    assert.equal(sanitizeHtml('<a href="javascript:alert(1)">click</a>'), '<a rel="noopener nofollow">click</a>');
    assert.equal(sanitizeHtml('<a href="JaVaScRiPt:alert(1)">x</a>'), '<a rel="noopener nofollow">x</a>');
    assert.equal(sanitizeHtml('<a href="data:text/html,hi">x</a>'), '<a rel="noopener nofollow">x</a>');
  });

  test('keeps http/https links and forces rel=noopener nofollow', () => {
    assert.equal(
      sanitizeHtml('<a href="https://example.com/x?a=1&amp;b=2" target="_blank" rel="opener">doc</a>'),
      '<a href="https://example.com/x?a=1&amp;b=2" rel="noopener nofollow">doc</a>',
    );
    assert.equal(sanitizeHtml('<a href="//evil.example/">x</a>'), '<a rel="noopener nofollow">x</a>');
  });

  test('removes style elements, style attributes and class attributes', () => {
    const out = sanitizeHtml('<style>body{display:none}</style><p style="color:red" class="x">t</p>');
    assert.equal(out, '<p>t</p>');
  });

  test('removes iframes, objects and svg (including svg script)', () => {
    const out = sanitizeHtml(
      '<iframe src="https://evil.example"></iframe><object data="x"></object>' + '<svg onload="alert(1)"><script>alert(2)</script></svg><p>kept</p>',
    );
    assert.equal(out, '<p>kept</p>');
    assert.doesNotMatch(out, /alert/);
  });

  test('other tags are stripped but their text stays, escaped', () => {
    assert.equal(sanitizeHtml('<div><h1>Title</h1> &amp; <span>x</span></div>'), 'Title &amp; x');
    assert.equal(sanitizeHtml('a < b & c > d'), 'a &lt; b &amp; c &gt; d');
  });

  test('unclosed and nested tricks do not survive', () => {
    const out = sanitizeHtml('<scr<script>ipt>alert(1)</script><p>x</p><img/src=x onerror=alert(1)//');
    assert.doesNotMatch(out, /<script|onerror|<img/i);
  });
});
