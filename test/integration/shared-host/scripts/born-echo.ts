// A stand-in for a host started with a birth line (src/host/birth-line.ts): it takes the line, then
// writes stray output as a careless library would, then echoes each message it reads on the line.
// It exits once the line closes.
//   node --import tsx born-echo.ts   (stdin and stdout: the pipes of spawnHost's birth line)

import { hostBirthLine } from '../../../../src/host/birth-line.ts';
import { LineChannel } from '../../../../src/host/line-channel.ts';

const line = hostBirthLine(process.env);
if (!line) process.exit(3);
console.log('stray console output');
process.stdout.write('stray stdout output\n');
const channel: LineChannel<unknown, unknown> = new LineChannel(
  line,
  (message) => channel.send({ echo: message }),
  () => process.exit(0),
);
