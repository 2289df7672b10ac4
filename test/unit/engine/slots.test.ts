import { describe, expect, it } from 'vitest';
import { SlotWaitExpired, Slots } from '../../../shared/engine/isolation/slots';

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

describe('Slots with a bounded wait', () => {
  it('fails a wait with SlotWaitExpired once its bound passes, and hands the slot to the next waiter, not to it', async () => {
    const slots = new Slots(1);
    await slots.take();
    const started = performance.now();
    const bounded = slots.take(undefined, 50);
    const patient = slots.take();
    await expect(bounded).rejects.toBeInstanceOf(SlotWaitExpired);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    slots.give();
    await expect(patient).resolves.toBeUndefined();
    // The slot went to the patient waiter, the only holder now: one more give frees it for anyone.
    slots.give();
    await expect(slots.take(undefined, 0)).resolves.toBeUndefined();
  });

  it('refuses at once when nothing is free and the caller cannot wait, and takes a free slot whatever the bound', async () => {
    const slots = new Slots(1);
    await expect(slots.take(undefined, 0)).resolves.toBeUndefined();
    await expect(slots.take(undefined, 0)).rejects.toBeInstanceOf(SlotWaitExpired);
    await expect(slots.take(undefined, -10)).rejects.toBeInstanceOf(SlotWaitExpired);
  });
});
