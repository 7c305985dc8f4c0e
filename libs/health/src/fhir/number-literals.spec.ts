import { describe, expect, it } from '@jest/globals';
import { inexactNumbers, keepsItsValue } from './number-literals.js';

describe('keepsItsValue', () => {
  it.each(['72', '72.50', '-7.5e-1', '1E2', '-0', '0.000', '0e999', '1e21', '100000000000000000000', '0.30000000000000004', '123456.789012345', '2147483647'])(
    '%s reads as its value',
    (literal) => expect(keepsItsValue(literal)).toBe(true),
  );

  it.each([
    '99999999999999999999',
    '9007199254740993',
    '0.12345678901234567890',
    '72.0000000000000000001',
    '1e309',
    '-1e309',
    '1e-400',
    '1e99999999999999999999',
  ])('%s does not', (literal) => expect(keepsItsValue(literal)).toBe(false));
});

describe('inexactNumbers', () => {
  it('names each by its path from the root, with its text as sent', () => {
    const json = `{
      "resourceType": "Bundle",
      "entry": [
        { "resource": { "valueQuantity": { "value": 1.5 } } },
        { "resource": { "component": [ {}, { "valueInteger" : 99999999999999999999 } ], "valueQuantity": { "value": 0.12345678901234567890 } } }
      ],
      "total": [1e309, 2, -1e-400]
    }`;
    expect(inexactNumbers(json, 'Bundle')).toEqual(
      new Map([
        ['Bundle.entry[1].resource.component[1].valueInteger', '99999999999999999999'],
        ['Bundle.entry[1].resource.valueQuantity.value', '0.12345678901234567890'],
        ['Bundle.total[0]', '1e309'],
        ['Bundle.total[2]', '-1e-400'],
      ]),
    );
  });

  it('reads keys with escapes, and skips digits inside strings', () => {
    const json = '{"text":"99999999999999999999 \\" [1e309, {","val\\u0075e":[true,null,"x",99999999999999999999]}';
    expect(inexactNumbers(json, 'Observation')).toEqual(new Map([['Observation.value[3]', '99999999999999999999']]));
  });

  it('finds nothing in a body whose numbers read as sent', () => {
    expect(inexactNumbers('{"a":[72,7.50,1E2,-0,{"b":2147483647}]}', 'Observation').size).toBe(0);
    expect(inexactNumbers('', 'Observation').size).toBe(0);
  });
});
