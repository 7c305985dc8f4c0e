import { decodeCursor, encodeCursor, toPage } from './pagination.js';
import { InvalidInputError } from './errors.js';

describe('pagination', () => {
  it('round-trips a keyset through an opaque cursor', () => {
    const cursor = encodeCursor(['2026-01-01T00:00:00.000Z', 'id-7']);
    expect(cursor).toMatch(/^[\w-]+$/);
    expect(decodeCursor(cursor)).toEqual(['2026-01-01T00:00:00.000Z', 'id-7']);
  });

  it.each(['not base64 json!', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('{').toString('base64url')])(
    'refuses %j naming the cursor field',
    (bad) => {
      let error: unknown;
      try {
        decodeCursor(bad);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).fields).toEqual({ cursor: expect.any(String) });
    },
  );

  it('builds a page from limit + 1 rows, with a cursor only when there is more', () => {
    const rows = [1, 2, 3].map((id) => ({ id }));
    const first = toPage(rows, 2, (row) => [row.id]);
    expect(first.items).toEqual([{ id: 1 }, { id: 2 }]);
    expect(decodeCursor(first.nextCursor!)).toEqual([2]);
    expect(
      toPage(
        rows,
        3,
        (row) => [row.id],
        (row) => row.id,
      ),
    ).toEqual({ items: [1, 2, 3], nextCursor: null });
  });
});
