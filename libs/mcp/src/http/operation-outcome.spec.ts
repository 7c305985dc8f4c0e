import { describe, expect, it } from '@jest/globals';
import { OperationOutcome, operationLabels } from './operation-outcome.js';

const known = (name: string) => name === 'echo';
const call = (name: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

describe('operationLabels', () => {
  it('names the method, the tool a tools/call names, and the revision', () => {
    expect(operationLabels(call('echo'), '2026-07-28', 200, undefined, known)).toEqual({
      method: 'tools/call',
      tool: 'echo',
      errorType: '',
      protocolVersion: '2026-07-28',
    });
    expect(operationLabels({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, undefined, 200, undefined, known)).toEqual({
      method: 'tools/list',
      tool: '',
      errorType: '',
      protocolVersion: '',
    });
  });

  it('folds what a client can make up into _OTHER or nothing: methods, tools, batches, bodies, revisions', () => {
    expect(operationLabels(call('made_up'), undefined, 200, undefined, known).tool).toBe('_OTHER');
    expect(operationLabels(call(42), undefined, 200, undefined, known).tool).toBe('_OTHER');
    expect(operationLabels({ jsonrpc: '2.0', id: 1, method: 'x/y' }, undefined, 200, undefined, known).method).toBe('_OTHER');
    expect(operationLabels({ jsonrpc: '2.0', id: 1, method: 'constructor' }, undefined, 200, undefined, known).method).toBe('_OTHER');
    expect(operationLabels([call('echo')], undefined, 200, undefined, known)).toMatchObject({ method: '_OTHER', tool: '' });
    expect(operationLabels(undefined, undefined, 400, undefined, known)).toMatchObject({ method: '_OTHER', errorType: '400' });
    expect(operationLabels(call('echo'), '1999-01-01', 200, undefined, known).protocolVersion).toBe('');
  });

  it('takes the first error noted over the HTTP status', () => {
    const outcome = new OperationOutcome();
    outcome.note('-32000');
    outcome.note('tool_error');
    expect(operationLabels(call('echo'), undefined, 429, outcome, known).errorType).toBe('-32000');
    expect(operationLabels(call('echo'), undefined, 429, new OperationOutcome(), known).errorType).toBe('429');
  });
});
