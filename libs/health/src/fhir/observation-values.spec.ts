import type { Observation } from '@medplum/fhirtypes';
import { clinicalTime, renderObservationValue } from './observation-values.js';

const base: Observation = { resourceType: 'Observation', status: 'final', code: { text: 'test' } };
const with_ = (value: Partial<Observation>): Observation => ({ ...base, ...value });
const mmHg = (value: number) => ({ value, unit: 'mmHg', system: 'http://unitsofmeasure.org', code: 'mm[Hg]' });

describe('renderObservationValue', () => {
  it.each<[string, Partial<Observation>, string | null]>([
    ['a quantity with its unit', { valueQuantity: { value: 72, unit: 'beats/minute' } }, '72 beats/minute'],
    ['a quantity with only a UCUM code', { valueQuantity: { value: 5.4, code: 'mmol/L' } }, '5.4 mmol/L'],
    ['a comparator', { valueQuantity: { value: 5, comparator: '<', unit: 'mg/dL' } }, '< 5 mg/dL'],
    ['a codeable concept by text', { valueCodeableConcept: { text: 'Positive' } }, 'Positive'],
    ['a codeable concept by coding display', { valueCodeableConcept: { coding: [{ code: '10828004', display: 'Positive' }] } }, 'Positive'],
    ['a string', { valueString: 'slept well' }, 'slept well'],
    ['a boolean', { valueBoolean: false }, 'no'],
    ['an integer', { valueInteger: 7 }, '7'],
    ['a range in one unit', { valueRange: { low: { value: 4, unit: 'h' }, high: { value: 6, unit: 'h' } } }, '4–6 h'],
    ['an open range', { valueRange: { low: { value: 4, unit: 'h' } } }, '≥ 4 h'],
    ['a period', { valuePeriod: { start: '2026-01-01T22:00:00Z', end: '2026-01-02T06:00:00Z' } }, '2026-01-01T22:00:00Z – 2026-01-02T06:00:00Z'],
    ['a ratio', { valueRatio: { numerator: { value: 1 }, denominator: { value: 128 } } }, '1 / 128'],
    ['an absent value', { dataAbsentReason: { text: 'asked but declined' } }, 'absent (asked but declined)'],
    ['nothing', {}, null],
  ])('renders %s', (_, value, expected) => expect(renderObservationValue(with_(value))).toBe(expected));

  it('renders blood pressure components as 120/80 mmHg', () => {
    const bloodPressure = with_({
      component: [
        { code: { coding: [{ system: 'http://loinc.org', code: '8480-6', display: 'Systolic' }] }, valueQuantity: mmHg(120) },
        { code: { coding: [{ system: 'http://loinc.org', code: '8462-4', display: 'Diastolic' }] }, valueQuantity: mmHg(80) },
      ],
    });
    expect(renderObservationValue(bloodPressure)).toBe('120/80 mmHg');
  });

  it('names components of different kinds', () => {
    const mixed = with_({
      component: [
        { code: { text: 'Systolic' }, valueQuantity: mmHg(120) },
        { code: { text: 'Position' }, valueString: 'sitting' },
      ],
    });
    expect(renderObservationValue(mixed)).toBe('Systolic: 120 mmHg; Position: sitting');
  });
});

describe('clinicalTime', () => {
  it('takes effective[x] in its forms, and issued separately', () => {
    expect(clinicalTime(with_({ effectiveDateTime: '2026-01-05T08:00:00Z', issued: '2026-02-01T00:00:00Z' }))).toEqual({
      effective: new Date('2026-01-05T08:00:00Z'),
      issued: new Date('2026-02-01T00:00:00Z'),
    });
    expect(clinicalTime(with_({ effectivePeriod: { start: '2026-01-04T22:00:00Z' } })).effective).toEqual(new Date('2026-01-04T22:00:00Z'));
    expect(clinicalTime(with_({ effectiveInstant: '2026-01-03T01:02:03Z' })).effective).toEqual(new Date('2026-01-03T01:02:03Z'));
    expect(clinicalTime(with_({ issued: '2026-01-02T00:00:00Z' }))).toEqual({ effective: null, issued: new Date('2026-01-02T00:00:00Z') });
  });
});
