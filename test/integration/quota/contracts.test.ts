/**
 * Quota contracts over HTTP: create, read the current one and the list, change the current
 * one's overage; each rule of a create answers its catalogue code, and windows never overlap,
 * not even when creates race.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unchecked, type ApiClient } from '../../support/api-client';
import { startTestTwin, type TestTwin } from '../../support/harness';

let env: TestTwin;
let admin: ApiClient;

beforeAll(async () => {
  env = await startTestTwin();
  admin = await env.clientFor('quota-contracts', ['admin']);
});
afterAll(() => env?.close());

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);

const contract = (name: string, start: string, end: string) => ({
  name,
  start_date: start,
  end_date: end,
  cpu_time_hours: 10,
  data_transfer_gb: 20,
});

describe('without a contract', () => {
  it('the current contract, its usage and its overage are 10-7003', async () => {
    const fresh = await env.clientFor('quota-none', ['admin']);
    for (const response of [
      await fresh.call('getCurrentQuotaContract', {}),
      await fresh.call('getQuotaUsage', {}),
      await fresh.call('setQuotaOverage', { body: { overage_allowed: true } }),
      await fresh.call('createQuotaContract', { body: { name: 'no dates', cpu_time_hours: 1, data_transfer_gb: 1 } }),
    ]) {
      expect(response.status, response.text).toBe(404);
      expect(response.problem).toMatchObject({ code: '10-7003' });
    }
  });
});

describe('create', () => {
  it.each([
    ['a negative value', { ...contract('neg', day(400), day(410)), data_transfer_gb: -1 }, '70-7004'],
    ['a start date alone', { name: 'one', start_date: day(400), cpu_time_hours: 1, data_transfer_gb: 1 }, '70-7002'],
    ['an end date alone', { name: 'one', end_date: day(400), cpu_time_hours: 1, data_transfer_gb: 1 }, '70-7002'],
    ['dates without a name', { ...contract('x', day(400), day(410)), name: null }, '70-7005'],
    [
      'dates without CPU hours',
      { start_date: day(400), end_date: day(410), name: 'x', data_transfer_gb: 1 },
      '70-7005',
    ],
    ['an end before the start', contract('backwards', day(410), day(400)), '70-7001'],
    ['an end on the start', contract('empty', day(400), day(400)), '70-7006'],
  ])('refuses %s', async (_, body, code) => {
    const response = await admin.call('createQuotaContract', { body: unchecked(body) });
    expect(response.status, response.text).toBe(400);
    expect(response.problem).toMatchObject({ status: 400, code });
  });

  it('creates the current contract, reads it, lists it, and changes its overage', async () => {
    const created = await admin.call('createQuotaContract', {
      body: { ...contract('this month', day(-3), day(27)), description: 'current', tags: ['a'] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      name: 'this month',
      description: 'current',
      tags: ['a'],
      start_date: day(-3),
      end_date: day(27),
      cpu_time_hours: 10,
      data_transfer_gb: 20,
      overage_allowed: false,
      lock_version: 0,
    });
    const current = await admin.call('getCurrentQuotaContract', {});
    expect(current.body).toEqual(created.body);

    const changed = await admin.call('setQuotaOverage', { body: { overage_allowed: true } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: created.body.id, overage_allowed: true, lock_version: 1 });

    const later = await admin.call('createQuotaContract', { body: contract('next', day(27), day(57)) });
    expect(later.status, later.text).toBe(201);
    const list = await admin.call('listQuotaContracts', { query: { sort: '-id' } });
    expect(list.body.items.map((item) => item.name)).toEqual(['next', 'this month']);
    // The later contract is not current yet: its window starts where this one ends.
    expect((await admin.call('getCurrentQuotaContract', {})).body.id).toBe(created.body.id);

    // Without dates, the current contract is there: nothing to create, the window is taken.
    const undated = await admin.call('createQuotaContract', {
      body: { name: 'undated', cpu_time_hours: 1, data_transfer_gb: 1 },
    });
    expect(undated.status, undated.text).toBe(409);
    expect(undated.problem).toMatchObject({
      code: '10-409',
      extraDetails: { overlapping_contract_id: created.body.id },
    });
  });

  it('refuses a window that overlaps another contract’s, also when creates race', async () => {
    const first = await admin.call('createQuotaContract', { body: contract('year 3', day(1000), day(1100)) });
    expect(first.status, first.text).toBe(201);
    const overlapping = await admin.call('createQuotaContract', { body: contract('inside', day(1050), day(1060)) });
    expect(overlapping.status, overlapping.text).toBe(409);
    expect(overlapping.problem).toMatchObject({
      code: '10-409',
      extraDetails: { overlapping_contract_id: first.body.id },
    });

    const racing = await Promise.all(
      [0, 1, 2, 3].map((index) =>
        admin.call('createQuotaContract', { body: contract(`race ${index}`, day(2000 + index), day(2010)) }),
      ),
    );
    expect(racing.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of racing.filter((answer) => answer.status !== 201))
      expect(response.problem.code).toMatch(/^10-(409|1006)$/);
  });

  it('is refused to a viewer (10-403), whose reads are allowed', async () => {
    const viewer = await env.clientFor('quota-contracts', ['viewer']);
    const refused = await viewer.call('createQuotaContract', { body: contract('viewer', day(3000), day(3001)) });
    expect(refused.problem).toMatchObject({ status: 403, code: '10-403' });
    expect((await viewer.call('getCurrentQuotaContract', {})).status).toBe(200);
  });
});
