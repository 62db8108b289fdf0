import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedPath } from '../../src/http/request-log.js';

describe('loggedPath', () => {
  it('drops the query and hides the secret of an emailed link, keeping what the request was', () => {
    const secret = 'pZ3kq8Yw1v0mX7r2aB9cD4eF5gH6iJ7kL8mN9oP0qRs';
    assert.equal(loggedPath(`/reset-password/${secret}`), '/reset-password/…');
    assert.equal(loggedPath(`/invitations/${secret}`), '/invitations/…');
    assert.equal(loggedPath(`/invitations/${secret}/logout?x=${secret}`), '/invitations/…/logout');
    assert.equal(loggedPath(`/public/v1/forms?startingAfter=${secret}`), '/public/v1/forms');
    assert.equal(loggedPath('/w/abc/members'), '/w/abc/members');
    assert.equal(loggedPath('/reset-password'), '/reset-password');
  });
});
