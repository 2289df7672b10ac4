/**
 * `npm start`'s options as the parser reads them: `--help` lists exactly the options the parser
 * accepts, one line each, and `--allow-outbound` takes repeated host:port entries and refuses
 * anything else in one line.
 */
import { describe, expect, it } from 'vitest';
import { PARSER_OPTIONS, StartError, startHelp, startOptions } from '../../infra/local/start-options';

/** The options --help prints: each line's option name and whether it shows a value. */
function listed(): { readonly name: string; readonly takesValue: boolean; readonly line: string }[] {
  return startHelp()
    .split('\n')
    .flatMap((line) => {
      const match = /^ {2}(?:-\w, | {4})--([a-z0-9-]+)( <[^>]+>(?:=\S+)?)? {2,}\S/.exec(line);
      return match === null ? [] : [{ name: match[1]!, takesValue: match[2] !== undefined, line }];
    });
}

/** The StartError that `run` throws, or undefined when it throws none. */
function refusal(run: () => unknown): StartError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof StartError) return error;
    throw error;
  }
}

describe('npm start -- --help', () => {
  it('lists every option the parser accepts, and no other, each on one line with what it does', () => {
    const options = listed();
    expect(options.map(({ name }) => name).sort()).toEqual(Object.keys(PARSER_OPTIONS).sort());
    expect(options.map(({ name }) => name)).toContain('allow-outbound');
    for (const { name, takesValue } of options) {
      // Black-box too: the parser knows each listed option (a bad value is another refusal).
      const args = takesValue ? [`--${name}`, 'x'] : [`--${name}`];
      expect(refusal(() => startOptions(args, {}))?.message ?? '', name).not.toMatch(/Unknown option/);
    }
    expect(refusal(() => startOptions(['--not-an-option'], {}))?.message).toMatch(
      /^Unknown option '--not-an-option'.*npm start -- --help lists the options$/,
    );
  });

  it('is asked for by --help or -h, whatever else is given', () => {
    expect(startOptions(['--help'], {})).toBe('help');
    expect(startOptions(['-h', '--port', 'not a port'], {})).toBe('help');
  });
});

describe('npm start -- --allow-outbound', () => {
  it('takes host:port entries, once per server, in the order given', () => {
    const options = startOptions(
      ['--allow-outbound', '127.0.0.1:9000', '--allow-outbound', 'minio.local:443', '--allow-outbound', '[::1]:9000'],
      {},
    );
    expect(options !== 'help' && options.allowOutbound).toEqual(['127.0.0.1:9000', 'minio.local:443', '[::1]:9000']);
    const none = startOptions([], {});
    expect(none !== 'help' && none.allowOutbound).toEqual([]);
  });

  it('refuses what is not host:port in one line, exit code 2', () => {
    for (const value of [
      '127.0.0.1',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '::1:9000',
      '[not-ipv6]:9000',
      'http://127.0.0.1:9000',
      '127.0.0.1:9000/path',
      '10.0.0.0/8',
    ]) {
      const refused = refusal(() => startOptions(['--allow-outbound', value], {}));
      expect(refused?.exitCode, value).toBe(2);
      expect(refused?.message, value).toBe(
        `--allow-outbound takes host:port with a port from 1 to 65535, such as 127.0.0.1:9000 or [::1]:9000, not "${value}"`,
      );
    }
  });
});

describe('npm start -- --fargate-above', () => {
  it('takes a whole number of bytes, 0 for every job, or FARGATE_ABOVE_BYTES; none by default', () => {
    const always = startOptions(['--fargate-above', '0'], {});
    expect(always !== 'help' && always.fargateAboveBytes).toBe(0);
    const fromEnvironment = startOptions([], { FARGATE_ABOVE_BYTES: '1048576' });
    expect(fromEnvironment !== 'help' && fromEnvironment.fargateAboveBytes).toBe(1_048_576);
    const none = startOptions([], {});
    expect(none !== 'help' && none.fargateAboveBytes).toBeUndefined();
    for (const value of ['-1', '1.5', '6GiB']) {
      const refused = refusal(() => startOptions([`--fargate-above=${value}`], {}));
      expect(refused?.exitCode, value).toBe(2);
      expect(refused?.message, value).toBe(
        `--fargate-above takes a whole number of bytes, 0 for every job, not "${value}"`,
      );
    }
  });
});

describe('npm start -- --scheduler', () => {
  it('fires schedules by default and with --scheduler; not with --no-scheduler; not both', () => {
    const scheduled = (args: string[]) => {
      const options = startOptions(args, {});
      return options !== 'help' && options.scheduler;
    };
    expect(scheduled([])).toBe(true);
    expect(scheduled(['--scheduler'])).toBe(true);
    expect(scheduled(['--no-scheduler'])).toBe(false);
    const refused = refusal(() => startOptions(['--scheduler', '--no-scheduler'], {}));
    expect(refused?.exitCode).toBe(2);
    expect(refused?.message).toBe('give --scheduler or --no-scheduler, not both');
  });
});
