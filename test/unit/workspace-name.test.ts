import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FALLBACK_WORKSPACE_NAME, organisationOf, workspaceNameForEmail, workspaceNameForHost } from '../../src/domain/workspace-name.js';

describe('the name a new workspace is offered (issue 41, item 17)', () => {
  it('reads an organisation from a host name, not from an address or localhost', () => {
    assert.equal(organisationOf('forms.acme.com'), 'Acme');
    assert.equal(organisationOf('acme.co.uk'), 'Acme');
    assert.equal(organisationOf('www.shop.example.org.'), 'Example');
    assert.equal(organisationOf('127.0.0.1'), null);
    assert.equal(organisationOf('::1'), null);
    assert.equal(organisationOf('localhost'), null);
    assert.equal(organisationOf('formgate'), null);
    assert.equal(workspaceNameForHost('127.0.0.1'), FALLBACK_WORKSPACE_NAME);
    assert.equal(workspaceNameForHost('forms.acme.io'), 'Acme');
  });

  it('offers the organisation of an address, or the person at a mail provider', () => {
    assert.equal(workspaceNameForEmail('ann@acme.com'), 'Acme');
    assert.equal(workspaceNameForEmail('ann.smith+forms@gmail.com'), 'Ann Smith’s workspace');
    assert.equal(workspaceNameForEmail('bob_jones@proton.me'), 'Bob Jones’s workspace');
    assert.equal(workspaceNameForEmail('x@127.0.0.1'), 'X’s workspace');
    assert.equal(workspaceNameForEmail('@'), FALLBACK_WORKSPACE_NAME);
    assert.ok([...workspaceNameForEmail(`${'a'.repeat(300)}@gmail.com`)].length <= 128);
  });
});
