import { describe, expect, it } from 'vitest';
import { Slots } from '../../../shared/engine/isolation/slots';

describe('Slots', () => {
  it('lets `size` holders in at once and the next in order as each gives its slot back', async () => {
    const slots = new Slots(2);
    const order: number[] = [];
    await slots.take();
    await slots.take();
    const third = slots.take().then(() => order.push(3));
    const fourth = slots.take().then(() => order.push(4));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.give();
    await third;
    expect(order).toEqual([3]);
    slots.give();
    await fourth;
    expect(order).toEqual([3, 4]);
  });

  it("gives up a wait when its signal aborts, with the signal's reason, and skips it", async () => {
    const slots = new Slots(1);
    await slots.take();
    const controller = new AbortController();
    const reason = new Error('the request ran out of time');
    const abandoned = slots.take(controller.signal);
    const next = slots.take();
    controller.abort(reason);
    await expect(abandoned).rejects.toBe(reason);
    slots.give();
    await expect(next).resolves.toBeUndefined();
  });
});
