import { describe, expect, it } from '@jest/globals';
import { validateBundleEnvelope, validateObservation } from './fhir-validation.js';
import { lazyInexactNumbers } from './number-literals.js';

const observation = (fields: Record<string, unknown>) => ({ resourceType: 'Observation', status: 'final', code: { text: 'steps' }, ...fields });
const url = 'http://example.com/extension';
const outOfRange = (sent: number | string, type = 'integer') =>
  `${sent} is out of range: a FHIR ${type} is from ${type === 'integer' ? -2147483648 : type === 'positiveInt' ? 1 : 0} to 2147483647`;

describe('whole numbers in FHIR’s 32-bit range', () => {
  it('refuses each integer type past it, wherever it is, by its path', () => {
    const resource = observation({
      valueSampledData: { origin: { value: 0 }, period: 1, dimensions: 2147483648 },
      extension: [{ url, valueUnsignedInt: 2147483648 }],
      component: [{ code: { text: 'left' }, valueQuantity: { value: 1, _value: { extension: [{ url, valueInteger: -2147483649 }] } } }],
      contained: [observation({ id: 'inner', valueInteger: 1e20 })],
    });
    expect(validateObservation(resource)).toEqual([
      { path: 'Observation.valueSampledData.dimensions', message: outOfRange(2147483648, 'positiveInt') },
      { path: 'Observation.extension[0].valueUnsignedInt', message: outOfRange(2147483648, 'unsignedInt') },
      { path: 'Observation.component[0].valueQuantity._value.extension[0].valueInteger', message: outOfRange(-2147483649) },
      { path: 'Observation.contained[0].valueInteger', message: outOfRange('100000000000000000000') },
    ]);
  });

  it('takes its edges, and larger decimals', () => {
    expect(validateObservation(observation({ valueInteger: -2147483648, extension: [{ url, valuePositiveInt: 2147483647 }] }))).toEqual([]);
    expect(validateObservation(observation({ valueQuantity: { value: 1e20 }, referenceRange: [{ low: { value: -1e300 } }] }))).toEqual([]);
  });

  it('leaves a resource with structural problems to those', () => {
    expect(validateObservation(observation({ valueInteger: 1.5, extension: [{ url, valueUnsignedInt: 2147483648 }] }))).toEqual([
      { path: 'Observation.value[x]', message: 'Expected number to be an integer' },
    ]);
  });
});

describe('numbers JSON.parse did not read as sent', () => {
  it('are refused by path, with the digits sent and the value that would be stored', () => {
    const text =
      '{"resourceType":"Observation","status":"final","code":{"text":"steps"},"valueQuantity":{"value":0.12345678901234567890},' +
      '"component":[{"code":{"text":"left"},"valueInteger":1.00000000000000001}]}';
    // As the entry at index 3 of a Bundle: paths start where the entry's resource does.
    const inexact = lazyInexactNumbers(text, 'Bundle.entry[3].resource');
    const resource = JSON.parse(text) as unknown;
    expect(validateObservation(resource, 'Bundle.entry[3].resource', inexact)).toEqual([
      {
        path: 'Bundle.entry[3].resource.valueQuantity.value',
        message: '0.12345678901234567890 cannot be stored exactly: it would read 0.12345678901234568 (a stored number keeps 15 significant digits)',
      },
      {
        path: 'Bundle.entry[3].resource.component[0].valueInteger',
        message: '1.00000000000000001 cannot be stored exactly: it would read 1 (a stored number keeps 15 significant digits)',
      },
    ]);
    expect(validateObservation(resource, 'Bundle.entry[2].resource', inexact)).toEqual([]);
  });

  it('apply to a Bundle’s own elements', () => {
    const resource = observation({ valueInteger: 7 });
    const inexact = (path: string) => (path === 'Bundle.entry[0].extension[0].valueDecimal' ? '0.12345678901234567890' : undefined);
    const bundle = {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [{ extension: [{ url, valueDecimal: 0.12345678901234568 }], resource, request: { method: 'POST', url: 'Observation' } }],
    };
    expect(validateBundleEnvelope(bundle, inexact)).toEqual([
      { path: 'Bundle.entry[0].extension[0].valueDecimal', message: expect.stringContaining('would read') },
    ]);
    expect(validateBundleEnvelope({ ...bundle, entry: [{ ...bundle.entry[0], extension: [{ url, valueUnsignedInt: 2147483648 }] }] })).toEqual([
      { path: 'Bundle.entry[0].extension[0].valueUnsignedInt', message: outOfRange(2147483648, 'unsignedInt') },
    ]);
  });
});
