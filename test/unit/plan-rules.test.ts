import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PLANS, planLabel, PlanRules, UNLIMITED_SUBMISSIONS } from '../../src/domain/plans.js';
import { uploadCeilings } from '../../src/domain/uploads.js';

describe('PlanRules', () => {
  it('in hosting mode applies the spec’s plans as before', () => {
    const rules = PlanRules.fixed('hosting');
    assert.equal(rules.team, false);
    assert.deepEqual([rules.limits('FREE').forms, rules.limits('FREE').submissions, rules.limits('FREE').members], [10, 250, 5]);
    assert.deepEqual([rules.limits('DEALIFY').forms, rules.limits('BUNDLE_50000').submissions, rules.limits('DEALIFY').members], [100, 50_000, null]);
    assert.equal(rules.isUpgraded('FREE'), false);
    assert.equal(rules.isUpgraded('BUNDLE_50000'), true);
    assert.deepEqual(rules.upgradedPlans(), ['BUNDLE_50000', 'DEALIFY']);
    assert.equal(rules.submissionsLeft('FREE', 200), 50);
    assert.equal(rules.submissionsLeft('FREE', 300), 0);
    assert.equal(rules.label('BUNDLE_50000'), 'Upgraded (50,000 submissions)');
  });

  it('in team mode gives every stored plan every feature and no cap', () => {
    const rules = PlanRules.fixed('team');
    for (const plan of PLANS) {
      const limits = rules.limits(plan);
      assert.equal(limits.unlimited, true);
      assert.equal(limits.forms, Number.POSITIVE_INFINITY);
      assert.equal(limits.members, null);
      assert.equal(limits.submissions, UNLIMITED_SUBMISSIONS);
      assert.equal(rules.isUpgraded(plan), true);
      assert.equal(rules.submissionsLeft(plan, 1_000_000), UNLIMITED_SUBMISSIONS);
      assert.equal(rules.label(plan), 'Unlimited');
    }
    assert.deepEqual(rules.upgradedPlans(), [...PLANS]);
    assert.deepEqual(uploadCeilings('FREE', rules.isUpgraded('FREE')), uploadCeilings('DEALIFY'));
  });

  it('reads the mode at each call, so a change of the setting applies at once', () => {
    let usage: 'team' | 'hosting' = 'hosting';
    const rules = new PlanRules(() => usage);
    assert.equal(rules.isUpgraded('FREE'), false);
    usage = 'team';
    assert.equal(rules.isUpgraded('FREE'), true);
  });

  it('names every plan for people, never by its code', () => {
    assert.deepEqual(PLANS.map(planLabel), ['Free', 'Upgraded (50,000 submissions)', 'Upgraded (Dealify)']);
  });
});
