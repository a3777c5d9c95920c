// A process whose only work is a session's first connect while the host it pre-started comes up (as a
// Pi in print mode, waiting for its first call): nothing else keeps it alive. Prints the call's text.
//   node --import tsx first-connect.ts <agent dir> <project> <server definition as JSON>

import { sharedHostConnector } from '../../../../src/adapters/host/shared-connector.ts';
import { startHostSoon } from '../../../../src/adapters/host/spawn-host.ts';

const [agentDir, project, definition] = process.argv.slice(2) as [string, string, string];
startHostSoon(agentDir);
const connectorFor = sharedHostConnector({ agentDir }, () => {
  throw new Error('ran in the session');
});
const connection = await connectorFor(project)(JSON.parse(definition), {
  signal: new AbortController().signal,
});
const result = await connection.callTool('echo', { text: 'first connect' });
process.stdout.write(`${result.content.map((c) => (c.type === 'text' ? c.text : '')).join('')}\n`);
await connection.close();
