import { canChangeRole, canGrantRole, canLeave, canManage, canRemove } from './circle-rules.js';

describe('care circle rules', () => {
  it.each([
    ['owner', true],
    ['maintainer', true],
    ['member', false],
  ] as const)('%s manages: %s', (role, expected) => expect(canManage(role)).toBe(expected));

  it.each([
    ['owner', 'owner', true],
    ['owner', 'maintainer', true],
    ['maintainer', 'owner', false],
    ['maintainer', 'maintainer', true],
    ['maintainer', 'member', true],
    ['member', 'member', false],
  ] as const)('%s grants %s: %s', (actor, granted, expected) => expect(canGrantRole(actor, granted)).toBe(expected));

  it('only an owner changes roles, never their own', () => {
    expect(canChangeRole('owner', 'member', 'owner', false)).toBe(true);
    expect(canChangeRole('owner', 'owner', 'member', true)).toBe(false);
    expect(canChangeRole('maintainer', 'member', 'maintainer', false)).toBe(false);
  });

  it('a maintainer removes members but not owners or other maintainers; nobody removes themselves', () => {
    expect(canRemove('maintainer', 'member', false)).toBe(true);
    expect(canRemove('maintainer', 'maintainer', false)).toBe(false);
    expect(canRemove('maintainer', 'owner', false)).toBe(false);
    expect(canRemove('owner', 'owner', false)).toBe(true);
    expect(canRemove('owner', 'member', true)).toBe(false);
    expect(canRemove('member', 'member', false)).toBe(false);
  });

  it('the last owner leaves only when handing over or alone', () => {
    expect(canLeave('owner', 0, 2)).toBe(false);
    expect(canLeave('owner', 1, 2)).toBe(true);
    expect(canLeave('owner', 0, 0)).toBe(true);
    expect(canLeave('member', 0, 3)).toBe(true);
  });
});
