import { describe, expect, it } from 'vitest';
import { parseTableRef } from '../../../shared/connectors/analytics-db/table-ref';
import { refusal } from '../../support/refusal';

describe('parseTableRef', () => {
  it.each([
    ['acme-bi.sales.daily', { project: 'acme-bi', dataset: 'sales', table: 'daily' }],
    ['`my project`.sales.`daily totals`', { project: 'my project', dataset: 'sales', table: 'daily totals' }],
    ['`acme-bi`.`sales`.`daily`', { project: 'acme-bi', dataset: 'sales', table: 'daily' }],
    ['p.d.`a.b`', { project: 'p', dataset: 'd', table: 'a.b' }],
    ['P_1.D_2.T_3', { project: 'P_1', dataset: 'D_2', table: 'T_3' }],
  ])('reads %s', (ref, parts) => {
    expect(parseTableRef(ref)).toEqual(parts);
  });

  it.each([
    ['two parts', 'sales.daily'],
    ['four parts', 'a.b.c.d'],
    ['a space outside backticks', 'my project.sales.daily'],
    ['an unterminated backtick', '`acme.sales.daily'],
    ['a backtick inside a bare name', 'ac`me.sales.daily'],
    ['an empty project', '.sales.daily'],
    ['an empty dataset', 'acme..daily'],
    ['an empty quoted dataset', 'acme.` `.daily'],
    ['text after a quoted part', '`acme`x.sales.daily'],
    ['other characters', 'acme.sales.daily;'],
    ['a control character', '`ac\nme`.sales.daily'],
  ])('refuses %s (30-1419)', (_label, ref) => {
    const error = refusal(() => parseTableRef(ref));
    expect(error.code).toBe('30-1419');
    // Messages quote submitted values escaped: the line break shows as \n.
    expect(error.message).toBe(
      `Invalid tableRef ${ref.replace('\n', '\\n')}; format is [projectId].[datasetId].[tableName], backtick-quoted where identifiers contain spaces`,
    );
  });

  it.each(['acme.sales.', 'acme.sales.``', 'acme.sales.`  `'])('refuses an empty table name in %s (30-1420)', (ref) => {
    const error = refusal(() => parseTableRef(ref));
    expect(error.code).toBe('30-1420');
    expect(error.message).toBe(`TableRef ${ref} has an empty table name`);
  });
});
