import { cursorKey, decodeCursor, encodeCursor, toPage, type KeyReader } from './pagination.js';
import { InvalidInputError } from './errors.js';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe('cursor keys', () => {
  it.each<[string, unknown, KeyReader<unknown>]>([
    ['instant', '2026-01-05T10:00:00.000Z', cursorKey.instant],
    ['instant', '2026-01-05T10:00:00.123456Z', cursorKey.instant],
    ['instant', '2026-01-05T10:00:00+01:00', cursorKey.instant],
    ['instant', '0001-01-01T00:00:00.000Z', cursorKey.instant],
    ['uuid', UUID, cursorKey.uuid],
    ['uuid', UUID.toUpperCase(), cursorKey.uuid],
    ['int8', '0', cursorKey.int8],
    ['int8', '9223372036854775807', cursorKey.int8],
    ['text', 'report 2026.pdf', cursorKey.text],
    ['text', '', cursorKey.text],
    ['oneOf', 'name', cursorKey.oneOf('time', 'name')],
  ])('%s reads %j as it is', (_name, value, read) => {
    expect(read(value)).toBe(value);
  });

  it.each<[string, unknown, KeyReader<unknown>]>([
    ['instant', 'garbage', cursorKey.instant],
    ['instant', '2026-02-30T00:00:00.000Z', cursorKey.instant],
    ['instant', '2026-02-30', cursorKey.instant],
    ['instant', '2026-01-05T10:00:00', cursorKey.instant],
    ['instant', '0000-01-01T00:00:00.000Z', cursorKey.instant],
    ['instant', '+275760-09-13T00:00:00.000Z', cursorKey.instant],
    ['instant', 1767607200000, cursorKey.instant],
    ['instant', null, cursorKey.instant],
    ['uuid', 'not-a-uuid', cursorKey.uuid],
    ['uuid', `${UUID}0`, cursorKey.uuid],
    ['uuid', 42, cursorKey.uuid],
    ['int8', '9223372036854775808', cursorKey.int8],
    ['int8', '99999999999999999999', cursorKey.int8],
    ['int8', '-1', cursorKey.int8],
    ['int8', '1e3', cursorKey.int8],
    ['int8', 7, cursorKey.int8],
    ['text', 'a\u0000b', cursorKey.text],
    ['text', 'cut \ud83d', cursorKey.text],
    ['text', ['nested'], cursorKey.text],
    ['oneOf', 'size', cursorKey.oneOf('time', 'name')],
    ['oneOf', ['time'], cursorKey.oneOf('time', 'name')],
  ])('%s refuses %j', (_name, value, read) => {
    expect(read(value)).toBeUndefined();
  });
});

describe('decodeCursor', () => {
  const KEYSET = [cursorKey.instant, cursorKey.uuid] as const;

  it('round-trips a keyset through an opaque cursor', () => {
    const cursor = encodeCursor(KEYSET, ['2026-01-01T00:00:00.000Z', UUID]);
    expect(cursor).toMatch(/^[\w-]+$/);
    expect(decodeCursor(cursor, KEYSET)).toEqual(['2026-01-01T00:00:00.000Z', UUID]);
  });

  it.each([
    ['not base64 of JSON', 'not base64 json!'],
    ['not JSON', cursorOf('{')],
    ['not an array', cursorOf('{"a":1}')],
    ['too short', cursorOf(JSON.stringify(['2026-01-01T00:00:00.000Z']))],
    ['too long', cursorOf(JSON.stringify(['2026-01-01T00:00:00.000Z', UUID, 'x']))],
    ['a value its reader refuses', cursorOf(JSON.stringify(['2026-02-30T00:00:00.000Z', UUID]))],
    ['a huge number', cursorOf(`[1e309, "${UUID}"]`)],
  ])('refuses a cursor that is %s, naming the parameter the caller gives', (_case, cursor) => {
    for (const [parameter, name] of [
      [undefined, 'cursor'],
      [{ name: '_cursor' }, '_cursor'],
    ] as const) {
      let error: unknown;
      try {
        decodeCursor(cursor, KEYSET, parameter);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).message).toMatch(new RegExp(`^Invalid ${name}: `));
      expect((error as InvalidInputError).fields).toEqual({ [name]: expect.any(String) });
    }
  });

  it('refuses to write a cursor its own keyset would not read back', () => {
    expect(() => encodeCursor(KEYSET, ['2026-01-01T00:00:00', UUID])).toThrow('cannot read back');
  });
});

describe('toPage', () => {
  it('builds a page from limit + 1 rows, with a cursor only when there is more', () => {
    const keyset = [cursorKey.int8] as const;
    const rows = ['1', '2', '3'].map((id) => ({ id }));
    const first = toPage(rows, 2, keyset, (row) => [row.id]);
    expect(first.items).toEqual([{ id: '1' }, { id: '2' }]);
    expect(decodeCursor(first.nextCursor!, keyset)).toEqual(['2']);
    expect(
      toPage(
        rows,
        3,
        keyset,
        (row) => [row.id],
        (row) => row.id,
      ),
    ).toEqual({ items: ['1', '2', '3'], nextCursor: null });
  });
});
