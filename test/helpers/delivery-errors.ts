import assert from 'node:assert/strict';
import { DeliveryError } from '../../src/domain/delivery-error.js';

/** Runs the call and returns the DeliveryError it must reject with. */
export async function deliveryErrorOf(call: Promise<unknown>): Promise<DeliveryError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof DeliveryError, `expected a DeliveryError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call succeeded');
}
