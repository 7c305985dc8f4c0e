import { expect } from '@jest/globals';
import { bearer } from './auth.js';

/** Stores one heart-rate reading (LOINC 8867-4) taken `daysAgo` days ago for the caller of `token`, through the FHIR API. */
export async function storeHeartRate(url: URL, token: string, value: number, daysAgo: number): Promise<void> {
  const stored = await fetch(new URL('/api/fhir/Observation', url), {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceType: 'Observation',
      status: 'final',
      code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] },
      effectiveDateTime: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
      valueQuantity: { value, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
    }),
  });
  expect(stored.status).toBe(201);
}
