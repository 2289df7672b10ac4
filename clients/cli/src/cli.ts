/** The entry point of the dps bundle: runs the command line and exits with its code once stdout is written. */
import { main } from './main';

const code = await main(process.argv);
// Exit without waiting for idle keep-alive connections, once what was printed is flushed.
process.stdout.write('', () => process.exit(code));
