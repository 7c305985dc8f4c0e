import type { BundleEntry } from '@medplum/fhirtypes';
import { linkEntries } from './bundle-references.js';

const observation = (text: string, extra: Record<string, unknown> = {}) => ({ resourceType: 'Observation', status: 'final', code: { text }, ...extra });
const entry = (fullUrl: string | undefined, resource: Record<string, unknown>) => ({ ...(fullUrl ? { fullUrl } : {}), resource }) as unknown as BundleEntry;

describe('references between the entries of a Bundle', () => {
  const panel = [
    entry('urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a', observation('systolic')),
    entry('urn:uuid:a5dcd0a3-0e23-4a7d-9f2a-7e1a0b6e3f3c', observation('diastolic')),
    entry(
      undefined,
      observation('blood pressure', {
        hasMember: [{ reference: 'urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a' }, { reference: 'urn:uuid:a5dcd0a3-0e23-4a7d-9f2a-7e1a0b6e3f3c' }],
        derivedFrom: [{ reference: 'Observation/kept-as-sent', display: 'elsewhere' }],
      }),
    ),
  ];

  it.each(['transaction', 'collection'] as const)('in a %s, name the id each entry is stored under', (type) => {
    const { resources, problems } = linkEntries(type, panel);
    expect(problems).toEqual([[], [], []]);
    expect(resources[2]!.resource.hasMember).toEqual([{ reference: `Observation/${resources[0]!.id}` }, { reference: `Observation/${resources[1]!.id}` }]);
    expect(resources[2]!.resource.derivedFrom).toEqual([{ reference: 'Observation/kept-as-sent', display: 'elsewhere' }]);
    expect(new Set(resources.map((resource) => resource.id)).size).toBe(3);
  });

  it('refuse a Bundle-local reference no entry answers to, and two entries with one fullUrl', () => {
    const { problems } = linkEntries('transaction', [
      entry('urn:uuid:1', observation('a')),
      entry('urn:uuid:1', observation('b')),
      entry(undefined, observation('c', { note: [{ text: 'x' }], focus: [{ reference: 'urn:oid:1.2.3' }] })),
    ]);
    expect(problems).toEqual([
      [],
      [{ path: 'Bundle.entry[1].fullUrl', message: 'urn:uuid:1 is the fullUrl of an earlier entry too' }],
      [{ path: 'Bundle.entry[2].resource.focus[0].reference', message: 'urn:oid:1.2.3 is the fullUrl of no entry of this Bundle' }],
    ]);
  });

  it('in a batch, refuse them: its entries are stored on their own', () => {
    const { resources, problems } = linkEntries('batch', panel);
    expect(problems[2]).toEqual([
      { path: 'Bundle.entry[2].resource.hasMember[0].reference', message: expect.stringContaining('send a transaction') },
      { path: 'Bundle.entry[2].resource.hasMember[1].reference', message: expect.stringContaining('send a transaction') },
    ]);
    expect(resources[2]!.resource.hasMember![0]).toEqual({ reference: 'urn:uuid:61ebe359-bfdc-4613-8bf2-c5e300945f0a' });
  });
});
