// Runs a command in new Linux namespaces, for tests of what a process does when the network fails:
//   node --import tsx test/helpers/in-namespace.ts <hosts file> <keep-network|no-network> <command…>
// The command sees <hosts file> as its /etc/hosts (a mount namespace: the host's stays untouched);
// with `no-network` it also gets a network namespace of its own with only a loopback (up) and no
// route anywhere else. Signals are passed on; the exit code is the command's. Needs root and
// util-linux (unshare, setpriv).
import { spawn } from 'node:child_process';

const [hostsFile, network, ...command] = process.argv.slice(2) as [string, 'keep-network' | 'no-network', ...string[]];
const setup = network === 'no-network' ? 'mount --bind "$0" /etc/hosts && ip link set lo up && exec "$@"' : 'mount --bind "$0" /etc/hosts && exec "$@"';
const flags = network === 'no-network' ? ['--mount', '--net'] : ['--mount'];
// --pdeathsig: should this wrapper be killed (SIGKILL in a test's after hook), the command goes with it
const child = spawn('setpriv', ['--pdeathsig', 'SIGKILL', 'unshare', ...flags, 'sh', '-c', setup, hostsFile, ...command], { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
