import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_CLAIM_VALUES, MAX_RULES, membershipGrants, parseMembershipRules } from '../../src/domain/membership-rules.js';

const W1 = 'aaaaaaaaaaaaaaaaaaaa';
const W2 = 'bbbbbbbbbbbbbbbbbbbb';

describe('membership rules of single sign-on', () => {
  it('reads claim and domain rules, one per line or separated by ;, with an optional role', () => {
    const { rules, problems } = parseMembershipRules(
      `groups=formgate-editors -> ${W1}\n# a comment\n@Example.COM -> ${W2} as owner; https://example.com/roles=admin->${W1} as member`,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(
      rules.map(({ text: _text, ...rule }) => rule),
      [
        { kind: 'claim', claim: 'groups', value: 'formgate-editors', workspaceId: W1, role: 'member' },
        { kind: 'domain', domain: 'example.com', workspaceId: W2, role: 'owner' },
        { kind: 'claim', claim: 'https://example.com/roles', value: 'admin', workspaceId: W1, role: 'member' },
      ],
    );
  });

  it('names each line it cannot read, and refuses more than the maximum', () => {
    const { problems } = parseMembershipRules(`groups -> ${W1}\n@example.com -> not-an-id\ngroups=x -> ${W1} as admin`);
    assert.equal(problems.length, 3);
    assert.match(problems[0]!, /^rule 1 \("groups -> /);
    const many = Array.from({ length: MAX_RULES + 1 }, (_, i) => `g=${i} -> ${W1}`).join('\n');
    assert.match(parseMembershipRules(many).problems[0]!, /at most 20 rules, got 21/);
  });

  it('grants by a claim equal to the value or a list holding it, and by the verified email’s domain only', () => {
    const { rules } = parseMembershipRules(`groups=editors -> ${W1}\n@example.com -> ${W2} as owner\nlevel=3 -> ${W2}`);
    const grants = (claims: Record<string, unknown>, verifiedEmail: string | null) => membershipGrants(rules, { claims, verifiedEmail });
    assert.deepEqual(grants({ groups: ['staff', 'editors'] }, null), [{ workspaceId: W1, role: 'member' }]);
    assert.deepEqual(grants({ groups: 'editors' }, null), [{ workspaceId: W1, role: 'member' }]);
    assert.deepEqual(grants({ groups: ['Editors'] }, null), [], 'values are compared exactly');
    assert.deepEqual(grants({}, 'ann@EXAMPLE.com'), [{ workspaceId: W2, role: 'owner' }]);
    assert.deepEqual(grants({}, 'ann@sub.example.com'), [], 'a subdomain is another domain');
    assert.deepEqual(grants({ level: 3 }, 'ann@example.com'), [{ workspaceId: W2, role: 'owner' }], 'owner wins for one workspace');
    assert.deepEqual(grants({ email: 'ann@example.com' }, null), [], 'an email that is not verified grants nothing');
    assert.deepEqual(grants({ groups: { editors: true } }, null), [], 'an object is no value');
  });

  it('reads a claim’s list up to its bound, and stays fast on the longest input', () => {
    const { rules } = parseMembershipRules(`groups=needle -> ${W1}`);
    const late = [...Array.from({ length: MAX_CLAIM_VALUES }, (_, i) => `g${i}`), 'needle'];
    assert.deepEqual(membershipGrants(rules, { claims: { groups: late }, verifiedEmail: null }), []);
    const started = performance.now();
    parseMembershipRules(`${'a'.repeat(100)}=${'-> '.repeat(66)}`);
    parseMembershipRules(`@${'a.'.repeat(140)}-> x`);
    membershipGrants(rules, { claims: { groups: Array.from({ length: 1_000_000 }, () => 'x'.repeat(10)) }, verifiedEmail: null });
    assert.ok(performance.now() - started < 1000);
  });
});
