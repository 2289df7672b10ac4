/**
 * Rules of the assistant that need no model: what history the model is shown, which fenced
 * blocks are SQL, and when the ai_assistant toggle is available.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StoredMessage } from '../../../shared/assistant/conversations';
import { historyTurns } from '../../../shared/assistant/reply';
import { boundReply } from '../../../shared/assistant/reply-bound';
import { sqlBlocks } from '../../../shared/assistant/sql-check';
import { FEATURE_TOGGLES } from '../../../shared/features/catalogue';

afterEach(() => vi.unstubAllEnvs());

const message = (number: number, content: string): StoredMessage => ({
  conversation_id: 'c',
  message_number: number,
  type: number % 2 === 1 ? 'user' : 'assistant',
  content,
  timestamp: '2026-01-01T00:00:00.000Z',
  tables_used: [],
});

describe('the history the model is shown', () => {
  const history = [1, 2, 3, 4, 5, 6].map((number) => message(number, `m${number}`.padEnd(10, '.')));

  it('is the newest messages, starting with a user message', () => {
    vi.stubEnv('ASSISTANT_HISTORY_MESSAGES', '3');
    expect(historyTurns(history).map((turn) => turn.text)).toEqual(['m5........', 'm6........']);
    vi.stubEnv('ASSISTANT_HISTORY_MESSAGES', '4');
    expect(historyTurns(history).map((turn) => [turn.role, turn.text])).toEqual([
      ['user', 'm3........'],
      ['assistant', 'm4........'],
      ['user', 'm5........'],
      ['assistant', 'm6........'],
    ]);
  });

  it('stops at the character bound', () => {
    vi.stubEnv('ASSISTANT_HISTORY_CHARS', '35');
    expect(historyTurns(history).map((turn) => turn.text)).toEqual(['m5........', 'm6........']);
    vi.stubEnv('ASSISTANT_HISTORY_CHARS', '5');
    expect(historyTurns(history)).toEqual([]);
  });
});

describe('SQL blocks of a reply', () => {
  it('are the ```sql fences, whatever follows the word', () => {
    const text = 'A:\n```sql\nSELECT 1\n```\nB:\n```SQL title\nSELECT 2\n```\n```python\nprint(3)\n```';
    expect(sqlBlocks(text).map((block) => block.code)).toEqual(['SELECT 1\n', 'SELECT 2\n']);
  });
});

describe('the bound of a reply', () => {
  it('keeps a reply that fits as it is', () => {
    expect(boundReply('x'.repeat(1_000), 1_000)).toEqual({ text: 'x'.repeat(1_000), originalChars: undefined });
  });

  it('cuts a longer one, never inside a surrogate pair, and says so within the bound', () => {
    const text = `${'x'.repeat(799)}${'😀'.repeat(500)}`;
    const bounded = boundReply(text, 1_000);
    expect(bounded.originalChars).toBe(text.length);
    expect(bounded.text.length).toBeLessThanOrEqual(1_000);
    expect(bounded.text).toMatch(/^x{799}(😀)*\n\n\(The answer was cut: the model answered 1799 characters/);
  });

  it('leaves out a fence the cut would leave open', () => {
    const text = `Try:\n\`\`\`sql\nSELECT 1\n\`\`\`\nThen:\n\`\`\`sql\n${'SELECT 2 '.repeat(200)}\n\`\`\``;
    const bounded = boundReply(text, 1_000);
    expect(bounded.text).toMatch(/^Try:\n```sql\nSELECT 1\n```\nThen:\n\n\(The answer was cut/);
  });
});

describe('the ai_assistant toggle', () => {
  it('is available only where a model is configured', () => {
    vi.stubEnv('ASSISTANT_BEDROCK_MODEL_ID', '');
    vi.stubEnv('ASSISTANT_CHAT_ENDPOINT', '');
    expect(FEATURE_TOGGLES.ai_assistant.available).toBe(false);
    vi.stubEnv('ASSISTANT_BEDROCK_MODEL_ID', 'anthropic.claude-3-5-haiku-20241022-v1:0');
    expect(FEATURE_TOGGLES.ai_assistant.available).toBe(true);
    vi.stubEnv('ASSISTANT_BEDROCK_MODEL_ID', '');
    vi.stubEnv('ASSISTANT_CHAT_ENDPOINT', 'http://127.0.0.1:11434/v1');
    expect(FEATURE_TOGGLES.ai_assistant.available).toBe(true);
  });
});
