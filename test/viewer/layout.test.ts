// The picture of a violation, from its attributes alone: where the missing,
// extra and moved messages are drawn, with which roles, and that it stays
// small whatever the lengths.

import { describe, expect, it } from 'vitest';
import { layoutOf, type Cell, type Layout } from '../../src/viewer/layout';
import type { OtlpAttributes } from '../../src/viewer/otlp-model';

const P = 'nous.session.invariant.';

function attrs(values: Record<string, unknown>): OtlpAttributes {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [P + k, v])) as OtlpAttributes;
}

/** Each side as `position:mark[:role]` (runs as `position+count:mark`), top to bottom. */
function columns(layout: Layout | null): { request: string[]; log: string[] } {
  const show = (c: Cell | null): string[] =>
    c ? [`${c.position}${c.count > 1 ? `+${c.count}` : ''}:${c.mark}${c.role ? `:${c.role}` : ''}`] : [];
  return { request: layout!.rows.flatMap((r) => show(r.request)), log: layout!.rows.flatMap((r) => show(r.log)) };
}

describe('layoutOf', () => {
  it('matching rows carry the roles the event gives for them, each side its own past the surplus', () => {
    const layout = layoutOf(
      'missing_message',
      'implicit',
      attrs({
        index: 3,
        request_length: 6,
        log_length: 8,
        'extra.count': 0,
        'missing.count': 2,
        'missing.roles': ['user', 'assistant'],
        'matching.before_roles': ['assistant', 'tool'],
        'matching.request_after_roles': ['user', 'assistant', 'user'],
        'matching.log_after_roles': ['user', 'assistant', 'user'],
      }),
    );
    expect(columns(layout)).toEqual({
      request: ['0:same', '1:same:assistant', '2:same:tool', '3:same:user', '4:same:assistant', '5:same'],
      log: [
        '0:same',
        '1:same:assistant',
        '2:same:tool',
        '3:missing:user',
        '4:missing:assistant',
        '5:same:user',
        '6:same:assistant',
        '7:same',
      ],
    });
  });

  it('an order violation: the first out-of-place message and the rows after it take the after-roles in turn', () => {
    const layout = layoutOf(
      'order',
      'implicit',
      attrs({
        index: 1,
        request_length: 4,
        log_length: 4,
        'extra.count': 0,
        'missing.count': 0,
        'matching.before_roles': ['system'],
        'matching.request_after_roles': ['user', 'assistant', 'tool'],
        'matching.log_after_roles': ['assistant', 'user', 'tool'],
      }),
    );
    expect(columns(layout)).toEqual({
      request: ['0:same:system', '1:moved:user', '2:rest:assistant', '3:rest:tool'],
      log: ['0:same:system', '1:moved:assistant', '2:rest:user', '3:rest:tool'],
    });
  });

  it('a sketched tool result carries its tool name and call id into its cell; other cells carry none', () => {
    const layout = layoutOf(
      'missing_message',
      'implicit',
      attrs({
        index: 1,
        request_length: 1,
        log_length: 3,
        'extra.count': 0,
        'extra.roles': [],
        'missing.count': 2,
        'missing.roles': ['assistant', 'tool'],
        'missing.tool_call_ids': ['', 'call_7'],
        'missing.tool_names': ['', 'get_weather'],
      }),
    );
    const missing = layout!.rows.flatMap((r) => (r.log?.mark === 'missing' ? [r.log] : []));
    expect(missing).toEqual([
      { position: 1, count: 1, mark: 'missing', role: 'assistant' },
      { position: 2, count: 1, mark: 'missing', role: 'tool', toolCallId: 'call_7', toolName: 'get_weather' },
    ]);
  });

  it('a dropped turn: the missing messages at the first difference in the log column, the request closing up', () => {
    const layout = layoutOf(
      'missing_message',
      'implicit',
      attrs({
        index: 3,
        request_length: 6,
        log_length: 8,
        'extra.count': 0,
        'extra.roles': [],
        'missing.count': 2,
        'missing.roles': ['user', 'assistant'],
      }),
    );
    expect(layout!.logTitle).toBe('conversation so far');
    expect(columns(layout)).toEqual({
      request: ['0:same', '1:same', '2:same', '3:same', '4:same', '5:same'],
      log: ['0:same', '1:same', '2:same', '3:missing:user', '4:missing:assistant', '5:same', '6:same', '7:same'],
    });
    // Missing rows have nothing on the request side: the gap is drawn where the messages went.
    expect(layout!.rows[3]).toEqual({ request: null, log: { position: 3, count: 1, mark: 'missing', role: 'user' } });
  });

  it('an invented message: extra in the request column at its position, against a bound session log', () => {
    const layout = layoutOf(
      'extra_message',
      'bound',
      attrs({
        index: 1,
        request_length: 2,
        log_length: 1,
        'extra.count': 1,
        'extra.roles': ['user'],
        'missing.count': 0,
        'missing.roles': [],
      }),
    );
    expect(layout!.logTitle).toBe('session log');
    expect(columns(layout)).toEqual({ request: ['0:same', '1:extra:user'], log: ['0:same'] });
  });

  it('a reorder: the first message out of place marked moved on both sides, the rest left unjudged', () => {
    const layout = layoutOf(
      'order',
      'implicit',
      attrs({ index: 4, request_length: 10, log_length: 10, 'extra.count': 0, 'missing.count': 0 }),
    );
    expect(columns(layout)).toEqual({
      request: ['0+2:same', '2:same', '3:same', '4:moved', '5:rest', '6:rest', '7+3:rest'],
      log: ['0+2:same', '2:same', '3:same', '4:moved', '5:rest', '6:rest', '7+3:rest'],
    });
  });

  it('a rewrite: extra and missing side by side on one row, previews when captured, and what differs in the notes', () => {
    const layout = layoutOf(
      'missing_message',
      'bound',
      attrs({
        index: 2,
        request_length: 3,
        log_length: 3,
        'extra.count': 1,
        'extra.roles': ['tool'],
        'extra.previews': ['{"rain"'],
        'missing.count': 1,
        'missing.roles': ['tool'],
        'missing.previews': ['{"rain":true}'],
        differs: ['content'],
      }),
    );
    expect(layout!.rows[2]).toEqual({
      request: { position: 2, count: 1, mark: 'extra', role: 'tool', preview: '{"rain"' },
      log: { position: 2, count: 1, mark: 'missing', role: 'tool', preview: '{"rain":true}' },
    });
    expect(layout!.notes.join(' ')).toContain('content');
  });

  it('surplus beyond the five sketched is one row of "more"; huge lengths stay a handful of rows', () => {
    const layout = layoutOf(
      'missing_message',
      'bound',
      attrs({
        index: 100_000,
        request_length: 100_010,
        log_length: 1_000_000_000,
        'extra.count': 0,
        'missing.count': 999_899_990,
        'missing.roles': Array(5).fill('user'),
      }),
    );
    expect(layout!.rows.length).toBeLessThan(15);
    expect(columns(layout).log).toEqual([
      '0+99998:same',
      '99998:same',
      '99999:same',
      '100000:missing:user',
      '100001:missing:user',
      '100002:missing:user',
      '100003:missing:user',
      '100004:missing:user',
      `100005+${999_899_990 - 5}:missing`,
      '999999990:same',
      '999999991:same',
      '999999992+8:same',
    ]);
  });

  it('no picture for kinds without positions, or attributes that are not counts', () => {
    expect(layoutOf('orphaned_tool_result', 'bound', attrs({ tool_call_id: 'call_1' }))).toBeNull();
    expect(layoutOf('invalid_request', 'implicit', attrs({ reason: 'not an array' }))).toBeNull();
    expect(layoutOf('missing_message', 'bound', attrs({ index: -1, request_length: 2, log_length: 3 }))).toBeNull();
    expect(layoutOf('missing_message', 'bound', attrs({ index: '1', request_length: 2, log_length: 3 }))).toBeNull();
    // Counts that contradict the lengths are clamped to them rather than drawing past either list.
    const clamped = columns(layoutOf('extra_message', 'bound', attrs({ index: 9, request_length: 2, log_length: 1, 'extra.count': 50 })));
    expect(clamped).toEqual({ request: ['0:same', '1:extra'], log: ['0:same'] });
  });
});
