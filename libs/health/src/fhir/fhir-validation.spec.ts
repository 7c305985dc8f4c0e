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
