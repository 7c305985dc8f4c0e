import { validateBundleEnvelope, validateObservation } from './fhir-validation.js';

const heartRate = {
  resourceType: 'Observation',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] },
  valueQuantity: { value: 72, unit: '/min' },
};

describe('FHIR validation (R4 definitions through @medplum/core)', () => {
  it('accepts a valid Observation', () => {
    expect(validateObservation(heartRate)).toEqual([]);
  });

  it('names each problem by path', () => {
    const problems = validateObservation({ resourceType: 'Observation', valueQuantity: { value: 'high' }, colour: 'red' });
    expect(problems.map((problem) => problem.path)).toEqual(
      expect.arrayContaining(['Observation.status', 'Observation.code', 'Observation.value[x].value', 'Observation.colour']),
    );
  });

  it('refuses a status outside the required binding', () => {
    expect(validateObservation({ ...heartRate, status: 'done' })).toEqual([{ path: 'Observation.status', message: expect.stringContaining('final') }]);
  });

  it('refuses other resource types and non-objects', () => {
    expect(validateObservation({ resourceType: 'Patient' })).toEqual([{ path: '$.resourceType', message: expect.stringContaining('Observation') }]);
    expect(validateObservation('x', 'Bundle.entry[1].resource')).toEqual([{ path: 'Bundle.entry[1].resource', message: expect.any(String) }]);
  });

  it('prefixes paths for a bundle entry', () => {
    expect(validateObservation({ ...heartRate, status: undefined }, 'Bundle.entry[2].resource')).toEqual([
      { path: 'Bundle.entry[2].resource.status', message: expect.any(String) },
    ]);
  });

  it('takes the dates and times FHIR allows, to any precision', () => {
    expect(
      validateObservation({
        ...heartRate,
        effectivePeriod: { start: '2024-02-29T23:00:00+01:00', end: '2024-02-29T22:00:00Z' },
        issued: '2026-01-05T10:00:00.123-05:00',
        component: [{ code: { text: 'since' }, valueDateTime: '2026' }],
      }),
    ).toEqual([]);
    expect(validateObservation({ ...heartRate, effectivePeriod: { start: '2026-01-15', end: '2026-01' } })).toEqual([]);
  });

  it('refuses the dates and times the R4 validator lets through, naming each', () => {
    // `new Date()` would read the first as 2 March, the second as the server's local time, and fail on the third.
    expect(
      validateObservation(
        {
          ...heartRate,
          effectiveTiming: { event: ['2026-01-05T10:00:00Z', '2026-02-30', '2026-01-05T10:00:00'] },
          issued: '2026-06-30T23:59:60Z',
          component: [{ code: { text: 'window' }, valuePeriod: { start: '2026-01-02', end: '2026-01-01' } }],
        },
        'Bundle.entry[1].resource',
      ),
    ).toEqual([
      { path: 'Bundle.entry[1].resource.effectiveTiming.event[1]', message: '"2026-02-30" has no day 30 in 2026-02' },
      {
        path: 'Bundle.entry[1].resource.effectiveTiming.event[2]',
        message: '"2026-01-05T10:00:00" needs a time zone after the time of day: Z or an offset such as +01:00',
      },
      { path: 'Bundle.entry[1].resource.issued', message: '"2026-06-30T23:59:60Z" is a leap second (:60), which cannot be stored: use :59' },
      { path: 'Bundle.entry[1].resource.component[0].valuePeriod', message: 'starts (2026-01-02) after it ends (2026-01-01)' },
    ]);
    expect(validateObservation({ ...heartRate, effectiveDateTime: '2026-04-31' })).toEqual([
      { path: 'Observation.effectiveDateTime', message: '"2026-04-31" has no day 31 in 2026-04' },
    ]);
  });

  it('checks the bundle envelope without its resources', () => {
    const entry = { resource: heartRate, request: { method: 'POST', url: 'Observation' } };
    expect(validateBundleEnvelope({ resourceType: 'Bundle', type: 'batch', entry: [entry] })).toEqual([]);
    expect(validateBundleEnvelope({ resourceType: 'Bundle', type: 'collection', entry: [{ resource: heartRate }] })).toEqual([]);
    expect(validateBundleEnvelope({ resourceType: 'Bundle', type: 'document', entry: [entry] })).toEqual([
      { path: 'Bundle.type', message: expect.any(String) },
    ]);
    expect(validateBundleEnvelope({ resourceType: 'Bundle', type: 'batch', entry: [] })).toEqual([{ path: 'Bundle.entry', message: expect.any(String) }]);
    expect(validateBundleEnvelope({ resourceType: 'Bundle', type: 'batch', entry: [{ request: { method: 7 } }] }).length).toBeGreaterThan(0);
  });
});
